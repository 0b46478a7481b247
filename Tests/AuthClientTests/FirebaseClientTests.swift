// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import TestSupport
import Testing

/// The client over Firebase Auth's REST API, against authsh's Firebase API on a live server (dev
/// mode, as the Auth emulator): the same `App`, `User` and `Credentials` as over App Services,
/// Firebase's errors with App Services' codes and the SDKs' `auth/...` names, and what only App
/// Services has refused naming the protocol.
@Suite(.timeLimit(.minutes(3))) struct FirebaseClientTests {
    /// The project `local` (the dev server's app) at the server's address.
    static func app(_ h: Harness, storage: String? = nil) throws -> App {
        try App(firebase: FirebaseProject(projectId: "local", emulator: h.origin), storageDirectory: storage)
    }

    @Test func anonymousAndEmailPasswordUsersSignInLinkAndLeave() async throws {
        try await LiveServer.run { h in
            let app = try Self.app(h)
            #expect(app.firebase?.identityToolkit == h.origin + "/identitytoolkit.googleapis.com/v1")
            let anonymous = try await app.login(credentials: .anonymous())
            #expect(anonymous.isAnonymous && anonymous.state == .loggedIn && app.currentUser == anonymous)
            #expect(anonymous.accessTokenClaims?["firebase"]?["sign_in_provider"] == "anonymous")
            #expect(try await app.login(credentials: .anonymous()) == anonymous, "reused, as over App Services")

            // The anonymous user upgraded with an email and password: the same user.
            try await anonymous.linkIdentity(.emailPassword(email: "fc@example.com", password: "password1"))
            #expect(!anonymous.isAnonymous && anonymous.profile.email == "fc@example.com", "\(anonymous.identities)")
            #expect(anonymous.identities.map(\.providerType) == [ProviderType.userpass])

            // Another user by registration, then a login; switching between them.
            try await app.emailPasswordAuth.registerUser(email: "reg@example.com", password: "password1")
            let registered = try await app.login(credentials: .emailPassword(email: "reg@example.com", password: "password1"))
            #expect(registered.id != anonymous.id && app.currentUser == registered)
            try app.switchUser(to: anonymous)
            #expect(app.currentUser == anonymous)

            // Errors: App Services' code, Firebase's name.
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "reg@example.com", password: "wrong-password"))
                Issue.record("a wrong password signed in")
            } catch {
                #expect(error.code == "InvalidPassword" && error.firebaseCode == "auth/invalid-credential", "\(error)")
            }
            do throws(AuthClientError) {
                try await app.emailPasswordAuth.registerUser(email: "reg@example.com", password: "password1")
                Issue.record("an email was registered twice")
            } catch {
                #expect(error.code == "AccountNameInUse" && error.firebaseCode == "auth/email-already-in-use", "\(error)")
            }
            #expect(try await app.signInMethods(email: "reg@example.com") == [ProviderType.userpass])

            // Only App Services has these: refused before any request, naming the protocol.
            do throws(AuthClientError) {
                _ = try await registered.callFunction(name: "sum", arguments: [1, 2])
                Issue.record("a function was called over Firebase")
            } catch {
                #expect(error.code == AuthClientError.notInProtocol && error.message.contains("Firebase"), "\(error)")
            }
            do throws(AuthClientError) {
                try await app.login(credentials: .userAPIKey("key"))
                Issue.record("an API key logged in over Firebase")
            } catch {
                #expect(error.code == AuthClientError.notInProtocol, "\(error)")
            }

            try await registered.delete()
            #expect(registered.state == .removed)
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "reg@example.com", password: "password1"))
                Issue.record("a deleted user signed in")
            } catch {
                #expect(error.code == "InvalidPassword", "\(error)")
            }
            try await anonymous.logOut()
            #expect(anonymous.state == .loggedOut && app.currentUser == nil)
        }
    }

    /// A provider's ID token signs in through `signInWithIdp` (in dev mode the emulator's fake
    /// one), and links to a signed-in user; a token another user holds is refused.
    @Test func providersSignInAndLink() async throws {
        try await LiveServer.run { h in
            let app = try Self.app(h)
            let claims = #"{"sub":"g-1","email":"g1@example.com","email_verified":true,"name":"Gee One"}"#
            let google = try await app.login(credentials: .google(idToken: claims))
            #expect(google.identities.map(\.providerType) == ["oauth2-google"] && google.identities.first?.id == "g-1")
            #expect(google.profile.name == "Gee One" && google.profile.email == "g1@example.com")
            #expect(google.accessTokenClaims?["firebase"]?["sign_in_provider"] == "google.com")

            try await app.emailPasswordAuth.registerUser(email: "o@example.com", password: "password1")
            let other = try await app.login(credentials: .emailPassword(email: "o@example.com", password: "password1"))
            let github = #"{"sub":"gh-1","email":"gh@example.com","email_verified":true}"#
            try await google.linkIdentity(.oauth(provider: "github", idToken: github))
            #expect(Set(google.identities.map(\.providerType)) == ["oauth2-google", "oauth2-github"], "\(google.identities)")
            do throws(AuthClientError) {
                try await other.linkIdentity(.oauth(provider: "github", idToken: github))
                Issue.record("an identity another user holds was linked")
            } catch {
                #expect(error.firebaseCode == "auth/credential-already-in-use", "\(error)")
            }
        }
    }

    /// A sign-in of a user with TOTP (enrolled through App Services: one factor for both APIs)
    /// throws `MFARequired` with the pending credential, and `.mfa(token:code:)` completes it
    /// through the v2 API's `mfaSignIn:finalize`.
    @Test func aSecondFactorCompletesTheSignIn() async throws {
        try await LiveServer.run(SecondFactorTests.withTOTP) { h in
            let services = try h.app()
            try await h.registerConfirmed(services, "mf@example.com")
            let first = try await services.login(credentials: .emailPassword(email: "mf@example.com", password: "password1"))
            let totp = try await first.secondFactors.enrollTOTP()
            let generator = try #require(TOTP(base32: totp.secret))
            _ = try await first.secondFactors.confirmTOTP(code: generator.code(at: try await SecondFactorTests.now(h)))

            let app = try Self.app(h)
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "mf@example.com", password: "password1"))
                Issue.record("the password alone signed in")
            } catch {
                #expect(error.code == "MFARequired" && error.factors == ["totp"] && error.firebaseCode == "auth/multi-factor-auth-required")
                let token = try #require(error.mfaToken)
                try await h.advanceClock(30)
                let later = try await SecondFactorTests.now(h)
                let user = try await app.login(credentials: .mfa(token: token, code: generator.code(at: later)))
                #expect(user.id == first.id && user.accessTokenClaims?["firebase"]?["sign_in_second_factor"] == "totp")
            }
        }
    }

    /// An ID token the server finds expired is refreshed (Secure Token) and the request sent
    /// again; the new token is kept, in the user store too.
    @Test func anExpiredIDTokenIsRefreshedAndKept() async throws {
        try await LiveServer.run { h in
            let storage = try Scratch.directory("firebase-client")
            let app = try Self.app(h, storage: storage)
            try await app.emailPasswordAuth.registerUser(email: "x@example.com", password: "password1")
            let user = try await app.login(credentials: .emailPassword(email: "x@example.com", password: "password1"))
            let first = try #require(user.accessToken)
            // The server's clock moves past the token's hour; this machine's does not.
            try await h.advanceClock(3700)
            let profile = try await user.refreshProfile()
            #expect(profile.email == "x@example.com")
            let second = try #require(user.accessToken)
            #expect(second != first, "a new ID token")
            // Another process sees the new token and the user.
            let again = try Self.app(h, storage: storage)
            #expect(again.currentUser?.id == user.id && again.currentUser?.accessToken == second)
        }
    }
}
