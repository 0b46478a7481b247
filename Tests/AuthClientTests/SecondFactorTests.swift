// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import AuthServer
import Testing

/// The client's second factors against a live server: enrol TOTP, then log in (and log in
/// again as the same user) through `MFARequired` and ``Credentials/mfa(token:code:)``.
@Suite(.timeLimit(.minutes(5))) struct SecondFactorTests {
    static func withTOTP(_ config: inout ServerConfiguration) {
        config.apps[0].mfa.totpEnabled = true
    }

    /// The server's clock now.
    static func now(_ h: Harness) async throws -> Int64 {
        try #require(try await h.dev("POST", "/clock", ["advanceSeconds": 0])["now"]?.integerValue)
    }

    @Test func enrolThenLogInWithACodeAndWithARecoveryCode() async throws {
        try await LiveServer.run(Self.withTOTP) { h in
            let app = try h.app()
            try await h.registerConfirmed(app, "m@example.com")
            let password = Credentials.emailPassword(email: "m@example.com", password: "password1")
            let user = try await app.login(credentials: password)
            let enrolment = try await user.secondFactors.enrollTOTP()
            #expect(enrolment.uri.hasPrefix("otpauth://totp/local:m%40example.com?secret=\(enrolment.secret)&"))
            let totp = try #require(TOTP(base32: enrolment.secret))
            let recovery = try await user.secondFactors.confirmTOTP(code: totp.code(at: try await Self.now(h)))
            #expect(recovery.count == 10)
            let listed = try await user.secondFactors.list()
            #expect(listed.factors.map(\.type) == ["totp"] && listed.factors[0].confirmed && listed.recoveryCodes == 10)

            // Another device: the password is not enough.
            let other = try h.app()
            let token: String
            do {
                _ = try await other.login(credentials: password)
                Issue.record("a password login of a user with TOTP went through")
                return
            } catch let error as AuthClientError {
                #expect(error.code == "MFARequired" && error.status == 401, "\(error)")
                #expect(error.factors == ["totp", "recovery_code"])
                token = try #require(error.mfaToken)
            }
            #expect(other.currentUser == nil, "nothing is logged in by the first step")
            let wrong = await #expect(throws: AuthClientError.self) {
                try await other.login(credentials: .mfa(token: token, code: "not-a-code"))
            }
            #expect(wrong?.code == "InvalidMFACode")
            let second = try await other.login(credentials: .mfa(token: token, code: recovery[0]))
            #expect(second.id == user.id && other.currentUser?.id == user.id)
            #expect(try await second.secondFactors.list().recoveryCodes == 9)

            // Reauthentication goes through the same two steps, and keeps the user.
            do {
                try await user.reauthenticate(with: password)
                Issue.record("a reauthentication with the password alone went through")
            } catch let error as AuthClientError {
                let again = try #require(error.mfaToken)
                try await h.advanceClock(30)
                try await user.reauthenticate(with: .mfa(token: again, code: totp.code(at: try await Self.now(h))))
            }
            try await user.secondFactors.removeTOTP()
            #expect(try await user.secondFactors.list().factors.isEmpty)
            #expect(try await other.login(credentials: password).id == user.id)
        }
    }
}

/// Passkeys from the client: a software authenticator registers one and logs in with it, and
/// answers a login's passkey step.
extension SecondFactorTests {
    @Test func aSoftwareAuthenticatorSignsUpAndSignsIn() async throws {
        try await LiveServer.run(Self.withTOTP) { h in
            let app = try h.app()
            let device = SoftwareAuthenticator(origin: "http://localhost")
            let user = try await app.login(credentials: .anonymous())
            let passkey = try await user.passkeys.register(with: device, name: "ci")
            #expect(passkey.name == "ci" && device.credentials.count == 1)
            #expect(try await user.passkeys.list().map(\.id) == [passkey.id])

            let other = try h.app()
            let again = try await other.login(credentials: .passkey(device))
            #expect(again.id == user.id)
            #expect(device.credentials.first?.signCount == 1)

            // With TOTP enrolled, a password login offers the passkey as its second step.
            try await h.registerConfirmed(app, "k@example.com")
            let password = Credentials.emailPassword(email: "k@example.com", password: "password1")
            let owner = try await app.login(credentials: password)
            let key = SoftwareAuthenticator(origin: "http://localhost")
            try await owner.passkeys.register(with: key)
            let enrolment = try await owner.secondFactors.enrollTOTP()
            let totp = try #require(TOTP(base32: enrolment.secret))
            _ = try await owner.secondFactors.confirmTOTP(code: totp.code(at: try await Self.now(h)))
            do {
                _ = try await other.login(credentials: password)
                Issue.record("a password login of a user with TOTP went through")
            } catch let error as AuthClientError {
                #expect(error.factors == ["totp", "passkey", "recovery_code"])
                let done = try await other.login(credentials: try .mfa(error, authenticator: key))
                #expect(done.id == owner.id)
            }
            // A refusal of the authenticator is an error named as a browser names it.
            let empty = SoftwareAuthenticator(origin: "http://localhost")
            let refused = await #expect(throws: AuthClientError.self) { try await other.login(credentials: .passkey(empty)) }
            #expect(refused?.code == "NotAllowedError")
        }
    }
}
