// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Synchronization
import TestSupport
import Testing

/// What a signed-in user does to their account over Firebase Auth's API, against authsh's
/// Firebase API on a live server (dev mode): the account-exists conflict and its pending
/// credential, unlinking, reauthentication, a password change, TOTP, the profile, email
/// changes and sign-in links; and what only Firebase has refused over App Services, naming
/// the protocol.
@Suite(.timeLimit(.minutes(3))) struct FirebaseClientAccountTests {
    /// The emulator's list of the action codes mailed (`oobCodes`), newest last.
    static func oobCodes(_ h: Harness, email: String, type: String) async throws -> [String] {
        let response = try await AsyncHTTPTransport().send(
            TransportRequest(
                method: "GET", url: h.origin + "/emulator/v1/projects/local/oobCodes", headers: [], body: nil, timeout: .seconds(60)))
        let codes = try EJSON(parsing: response.body)["oobCodes"]?.arrayValue ?? []
        return codes.filter {
            ($0["newEmail"] ?? $0["email"])?.stringValue == email && $0["requestType"]?.stringValue == type
        }.compactMap {
            $0["oobLink"]?.stringValue
        }
    }

    /// A link's `oobCode`.
    static func code(in link: String) -> String? {
        guard let query = link.firstIndex(of: "?") else { return nil }
        return FormEncoding.decode(link[link.index(after: query)...]).flatMap { FormEncoding.value("oobCode", in: $0) }
    }

    /// A Google sign-in whose verified email a password account holds answers Firebase's
    /// `needConfirmation`: the client raises `AccountExistsWithDifferentCredential` with the
    /// email, the providers and the pending credential, which links once the person signed
    /// in with the password; the next Google sign-in lands on that user.
    @Test func theAccountExistsConflictLinksItsPendingCredential() async throws {
        try await LiveServer.run({ $0.apps[0].oneAccountPerEmail = true }) { h in
            try await h.registerConfirmed(try h.app(), "ae@example.com")
            let app = try FirebaseClientTests.app(h)
            let google = Credentials.google(idToken: #"{"sub":"g-ae","email":"ae@example.com","email_verified":true}"#)
            var pending: Credentials?
            do throws(AuthClientError) {
                try await app.login(credentials: google)
                Issue.record("a Google sign-in took an email another account verified")
            } catch {
                #expect(error.code == "AccountExistsWithDifferentCredential", "\(error)")
                #expect(error.firebaseCode == "auth/account-exists-with-different-credential")
                #expect(error.email == "ae@example.com" && error.providers == [ProviderType.userpass], "\(error.details)")
                pending = error.pendingCredential
            }
            let credential = try #require(pending)
            #expect(credential.provider == "oauth2-google")
            #expect(app.currentUser == nil, "nobody signed in")

            let user = try await app.login(credentials: .emailPassword(email: "ae@example.com", password: "password1"))
            try await user.linkIdentity(credential)
            #expect(Set(user.identities.map(\.providerType)) == [ProviderType.userpass, "oauth2-google"], "\(user.identities)")
            let again = try await app.login(credentials: google)
            #expect(again.id == user.id)
        }
    }

    /// Unlinking names a provider (`deleteProvider`); the last identity stays; a
    /// reauthentication keeps the user and refuses another user's credentials.
    @Test func unlinkAndReauthenticate() async throws {
        try await LiveServer.run { h in
            let app = try FirebaseClientTests.app(h)
            try await app.emailPasswordAuth.registerUser(email: "ul@example.com", password: "password1")
            let user = try await app.login(credentials: .emailPassword(email: "ul@example.com", password: "password1"))
            try await user.linkIdentity(.oauth(provider: "github", idToken: #"{"sub":"gh-ul","email":"ul-gh@example.com"}"#))
            #expect(user.identities.count == 2)
            try await user.unlink(providerType: "oauth2-github", id: "gh-ul")
            #expect(user.identities.map(\.providerType) == [ProviderType.userpass], "\(user.identities)")
            do throws(AuthClientError) {
                try await user.unlink(providerType: ProviderType.userpass, id: "ul@example.com")
                Issue.record("the last identity was unlinked")
            } catch {
                #expect(error.code == "OPERATION_NOT_ALLOWED" && error.firebaseCode == "auth/operation-not-allowed", "\(error)")
            }

            let before = user.refreshToken
            try await user.reauthenticate(with: .emailPassword(email: "ul@example.com", password: "password1"))
            #expect(user.state == .loggedIn && user.refreshToken != before && app.currentUser == user)
            try await app.emailPasswordAuth.registerUser(email: "other@example.com", password: "password1")
            let kept = user.refreshToken
            do throws(AuthClientError) {
                try await user.reauthenticate(with: .emailPassword(email: "other@example.com", password: "password1"))
                Issue.record("another user's credentials reauthenticated")
            } catch {
                #expect(error.code == AuthClientError.userMismatch, "\(error)")
            }
            #expect(user.refreshToken == kept, "nothing changed")
        }
    }

    /// `changePassword` checks the old password by a sign-in, then `accounts:update` sets the
    /// new one; the user stays signed in.
    @Test func aPasswordChangeChecksTheOldOne() async throws {
        try await LiveServer.run { h in
            let app = try FirebaseClientTests.app(h)
            try await app.emailPasswordAuth.registerUser(email: "cp@example.com", password: "password1")
            let user = try await app.login(credentials: .emailPassword(email: "cp@example.com", password: "password1"))
            do throws(AuthClientError) {
                try await app.emailPasswordAuth.changePassword(from: "not-the-password", to: "password2")
                Issue.record("a wrong old password changed the password")
            } catch {
                #expect(error.code == "InvalidPassword", "\(error)")
            }
            try await app.emailPasswordAuth.changePassword(from: "password1", to: "password2")
            #expect(user.state == .loggedIn)
            #expect(try await user.refreshProfile().email == "cp@example.com", "the kept tokens still work")
            let again = try await app.login(credentials: .emailPassword(email: "cp@example.com", password: "password2"))
            #expect(again.id == user.id)
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "cp@example.com", password: "password1"))
                Issue.record("the old password still signs in")
            } catch {
                #expect(error.code == "InvalidPassword", "\(error)")
            }
        }
    }

    /// TOTP enrolled over Firebase's v2 API (`mfaEnrollment:start|finalize`), listed from
    /// `mfaInfo`, asked at the next sign-in, and withdrawn by a login that used it.
    @Test func totpEnrolsAndWithdrawsOverTheV2API() async throws {
        try await LiveServer.run(SecondFactorTests.withTOTP) { h in
            let app = try FirebaseClientTests.app(h)
            try await h.registerConfirmed(try h.app(), "tf@example.com")
            let user = try await app.login(credentials: .emailPassword(email: "tf@example.com", password: "password1"))
            do throws(AuthClientError) {
                _ = try await user.secondFactors.confirmTOTP(code: "123456")
                Issue.record("a confirmation with no enrolment under way passed")
            } catch {
                #expect(error.code == "MFAFactorNotFound", "\(error)")
            }
            let enrolment = try await user.secondFactors.enrollTOTP()
            #expect(enrolment.uri.hasPrefix("otpauth://totp/local:tf%40example.com?secret=" + enrolment.secret), "\(enrolment.uri)")
            let generator = try #require(TOTP(base32: enrolment.secret))
            let now = try await SecondFactorTests.now(h)
            let codes = try await user.secondFactors.confirmTOTP(code: generator.code(at: now))
            #expect(codes.count == 10, "authsh's server answers recovery codes")
            let (factors, _) = try await user.secondFactors.list()
            #expect(factors.map(\.type) == ["totp"] && factors.first?.enrollmentId == "totp")
            #expect(abs((factors.first?.createdAt ?? 0) - now) < 5, "enrolledAt read as \(factors.first?.createdAt ?? 0), now \(now)")

            var token: String?
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "tf@example.com", password: "password1"))
                Issue.record("the password alone signed in")
            } catch {
                #expect(error.code == "MFARequired", "\(error)")
                token = error.mfaToken
            }
            try await h.advanceClock(30)
            let second = try await app.login(credentials: .mfa(token: try #require(token), code: generator.code(at: now + 30)))
            try await second.secondFactors.removeTOTP()
            #expect(try await second.secondFactors.list().factors.isEmpty)
            let plain = try await app.login(credentials: .emailPassword(email: "tf@example.com", password: "password1"))
            #expect(plain.id == user.id)
        }
    }

    /// The display name and photo, the email (at once, or once a mailed link is followed),
    /// and sign-in links: Firebase's, refused over App Services naming the protocol.
    @Test func profileEmailAndSignInLinks() async throws {
        try await LiveServer.run { h in
            let app = try FirebaseClientTests.app(h)
            try await app.emailPasswordAuth.registerUser(email: "pf@example.com", password: "password1")
            let user = try await app.login(credentials: .emailPassword(email: "pf@example.com", password: "password1"))
            try await user.updateProfile(displayName: "Ada", photoURL: "https://example.com/ada.png")
            #expect(user.profile.name == "Ada" && user.profile.pictureURL == "https://example.com/ada.png")
            try await user.updateProfile(displayName: "")
            #expect(user.profile.name == nil && user.profile.pictureURL == "https://example.com/ada.png")

            try await user.verifyBeforeUpdateEmail("pf2@example.com")
            #expect(user.profile.email == "pf@example.com", "no change before the link is followed")
            let change = try #require(try await Self.oobCodes(h, email: "pf2@example.com", type: "VERIFY_AND_CHANGE_EMAIL").last)
            try await app.emailPasswordAuth.confirmUser(token: try #require(Self.code(in: change)), tokenId: "")
            // The move ends the user's sessions, as Firebase's does: the client signs out.
            do throws(AuthClientError) {
                _ = try await user.refreshProfile()
                Issue.record("a session outlived the email change")
            } catch {
                #expect(error.code == "InvalidSession" && user.state == .loggedOut, "\(error)")
            }
            let moved = try await app.login(credentials: .emailPassword(email: "pf2@example.com", password: "password1"))
            #expect(moved.id == user.id && moved.profile.email == "pf2@example.com")

            try await app.emailPasswordAuth.sendSignInLink(email: "link@example.com")
            let link = try #require(try await Self.oobCodes(h, email: "link@example.com", type: "EMAIL_SIGNIN").last)
            let linked = try await app.login(credentials: .emailLink(email: "link@example.com", link: link))
            #expect(linked.profile.email == "link@example.com" && linked.id != user.id)

            // Over App Services: refused before any request, naming the protocol.
            let services = try h.app()
            let other = try await services.login(credentials: .anonymous())
            try await Self.refusedOverAppServices { try await other.updateProfile(displayName: "x") }
            try await Self.refusedOverAppServices { try await other.updateEmail("x@example.com") }
            try await Self.refusedOverAppServices { try await services.emailPasswordAuth.sendSignInLink(email: "x@example.com") }
            try await Self.refusedOverAppServices {
                _ = try await services.login(credentials: .emailLink(email: "x@example.com", link: "c"))
            }
        }
    }

    /// `signIn("github")` over Firebase: `createAuthUri` with the listener as `continueUri`,
    /// the dev identity provider played, the page back to `signInWithIdp` with the
    /// `sessionId`; the same person lands on the same user, and keeps GitHub's token for
    /// GitHub's API. The device flow is App Services' only.
    @Test func signInRunsTheRedirectThroughSignInWithIdp() async throws {
        try await LiveServer.run { h in
            let app = try FirebaseClientTests.app(h)
            let ada = DevIdentity(email: "ada@example.com", name: "Ada")
            let user = try await app.signIn(provider: "github", presenter: .devIdentity(ada, device: false))
            #expect(user.identities.map(\.providerType) == ["oauth2-github"] && user.profile.email == "ada@example.com")
            #expect(user.accessTokenClaims?["firebase"]?["sign_in_provider"] == "github.com")
            let token = try #require(user.providerTokens?.accessToken)
            let me = try await AsyncHTTPTransport().send(
                TransportRequest(method: "GET", url: h.origin + "/dev/idp/github/api/user", headers: [("Authorization", "Bearer \(token)")]))
            #expect(try EJSON(parsing: me.body)["name"] == "Ada")
            try await user.logOut()
            let again = try await app.signIn(provider: "oauth2-github", presenter: .devIdentity(ada, device: false))
            #expect(again.id == user.id && app.currentUser == again)

            let seen = Mutex<String?>(nil)
            let scoped = try await app.signIn(
                provider: "github", scopes: ["read:user"], customParameters: ["allow_signup": "false"],
                presenter: .url { url in
                    seen.withLock { $0 = url }
                    let t = AsyncHTTPTransport()
                    let approved = try await t.send(
                        TransportRequest(
                            method: "POST", url: h.origin + "/dev/idp/api/approve", headers: [("Content-Type", "application/json")],
                            body: Array(#"{"url":"\#(url)","identity":{"email":"b@example.com"}}"#.utf8)))
                    let callback = try #require(try EJSON(parsing: approved.body)["redirect"]?.stringValue)
                    let loopback = try #require(try await t.send(TransportRequest(method: "GET", url: callback)).header("Location"))
                    #expect(loopback.hasPrefix("http://127.0.0.1:") && loopback.contains("code="))
                    _ = try await t.send(TransportRequest(method: "GET", url: loopback))
                })
            // Only `read:user` was asked for: GitHub's emails (`user:email`) were not read.
            #expect(scoped.id != user.id && scoped.profile.email == nil && scoped.identities.map(\.providerType) == ["oauth2-github"])
            let url = try #require(seen.withLock { $0 })
            #expect(url.contains("/dev/idp/github/login/oauth/authorize?") && url.contains("allow_signup=false") && url.contains("scope=read%3Auser"))

            do throws(AuthClientError) {
                try await app.signIn(provider: "github", presenter: .devIdentity(ada, device: true))
                Issue.record("a device sign-in ran over Firebase")
            } catch {
                #expect(error.code == AuthClientError.notInProtocol, "\(error)")
            }
        }
    }

    /// An anonymous sign-in is one request, as over App Services: its ID token says all a
    /// lookup would (a new user, no profile, no provider); a password sign-in looks the user up.
    @Test func anAnonymousSignInIsOneRequest() async throws {
        try await LiveServer.run { h in
            let counter = RequestCounter()
            let app = try App(firebase: FirebaseProject(projectId: "local", emulator: h.origin), transport: counter)
            let guest = try await app.login(credentials: .anonymous(reuse: false))
            #expect(counter.total == 1 && guest.isAnonymous && guest.identities.first?.id == guest.id, "\(counter.counts.withLock { $0 })")
            try await app.emailPasswordAuth.registerUser(email: "one@example.com", password: "password1")
            let before = counter.total
            _ = try await app.login(credentials: .emailPassword(email: "one@example.com", password: "password1"))
            #expect(counter.total - before == 2, "signInWithPassword, then lookup")
        }
    }

    /// What the Auth emulator answers to a redirect's `createAuthUri` (its exact body, taken
    /// from firebase-tools' emulator built from source: it serves no IdP redirect): the error
    /// is named by its status, with the emulator's sentence as the message. (The emulator cannot
    /// run here, so its answer is replayed.)
    @Test func anErrorWithoutACodeIsNamedByItsStatus() async throws {
        struct Emulator: AuthTransport {
            func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
                TransportResponse(
                    status: 501,
                    body: Array(
                        #"{"error":{"code":501,"message":"Sign-in with IDP is not yet supported.","errors":[{"message":"Sign-in with IDP is not yet supported.","reason":"unimplemented"}],"status":"NOT_IMPLEMENTED"}}"#
                            .utf8))
            }
        }
        let app = try App(firebase: FirebaseProject(projectId: "demo-project", emulator: "127.0.0.1:9099"), transport: Emulator())
        do throws(AuthClientError) {
            try await app.signIn(provider: "github", presenter: .url { _ in })
            Issue.record("the sign-in passed")
        } catch {
            #expect(error.code == "NOT_IMPLEMENTED" && error.message == "Sign-in with IDP is not yet supported." && error.status == 501, "\(error)")
            #expect(error.firebaseCode == "auth/not-implemented")
        }
    }

    /// Expects `body` to fail with `NotInProtocol` naming App Services.
    static func refusedOverAppServices(_ body: () async throws -> Void) async throws {
        do {
            try await body()
            Issue.record("a Firebase-only operation passed over App Services")
        } catch let error as AuthClientError {
            #expect(error.code == AuthClientError.notInProtocol && error.message.contains("App Services"), "\(error)")
        }
    }
}
