// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import TestSupport
import Testing

/// TOTP through HTTP: an app that offers it, enrolment, the two steps of a login, and the
/// claims of the tokens; what the TOTP, passkey and API key tests share.
enum TOTPHarness {
    /// The user's second factors' routes.
    static let mfa = Routes.base + "/auth/mfa"

    /// An app `local` with TOTP offered (issuer "Acme Inc"), `configure` applied.
    static func app(_ configure: (inout AppConfiguration) -> Void = { _ in }) -> AppConfiguration {
        var app = AppConfiguration(id: "local")
        app.mfa.totpEnabled = true
        app.mfa.totpIssuer = "Acme Inc"
        configure(&app)
        return app
    }

    /// The server's clock, moved `seconds` forward first.
    @discardableResult
    static func now(_ c: Client, advancing seconds: Int64 = 0) async throws -> Int64 {
        let reply = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": .int64(seconds)])
        return try #require(reply.body["now"]?.integerValue)
    }

    /// The claims of a JWT (unverified).
    static func claims(_ token: String?) throws -> EJSON {
        let parts = try #require(token).split(separator: ".")
        return try EJSON(parsing: try #require(Base64.decode(String(parts[1]))))
    }

    /// A token's `amr` claim.
    static func amr(_ token: String?) throws -> [String]? {
        try claims(token)["amr"]?.arrayValue?.compactMap(\.stringValue)
    }

    /// A confirmed user with TOTP: their first session's access token, the generator and the recovery codes.
    static func enrolled(_ c: Client, _ email: String) async throws -> (access: String, totp: TOTP, recovery: [String]) {
        try await c.registerConfirmed(email)
        let access = try #require(try await c.emailLogin(email, "password1")["access_token"])
        let (totp, codes) = try await enrol(c, access: access)
        return (access, totp, codes)
    }

    /// Enrols TOTP for the user of `access` (a recent login): the generator and the recovery codes.
    static func enrol(_ c: Client, access: String) async throws -> (totp: TOTP, recovery: [String]) {
        let started = try await c.call(.post, Self.mfa + "/totp", token: access)
        #expect(started.status == 201, "\(started.body)")
        let secret = try #require(started["secret"])
        let totp = try #require(TOTP(base32: secret))
        let now = try await Self.now(c)
        let confirmed = try await c.call(.post, Self.mfa + "/totp/confirm", json: ["code": .string(totp.code(at: now))], token: access)
        #expect(confirmed.status == 200, "\(confirmed.body)")
        return (totp, try #require(confirmed.body["recoveryCodes"]?.arrayValue).compactMap(\.stringValue))
    }

    /// The first step of a login of a user with a factor: its `mfaToken`.
    static func mfaToken(_ c: Client, _ email: String) async throws -> String {
        let first = try await c.emailLogin(email, "password1")
        #expect(first.status == 401 && first.code == "MFARequired", "\(first.body)")
        #expect(first["access_token"] == nil)
        return try #require(first["mfaToken"])
    }

    /// The second step of a login: the `mfaToken` answered with `code`.
    static func complete(_ c: Client, _ token: String, _ code: String) async throws -> Reply {
        try await c.login(MFALogin.provider, ["mfaToken": .string(token), "code": .string(code)])
    }
}
