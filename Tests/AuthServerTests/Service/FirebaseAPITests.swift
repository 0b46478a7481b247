// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// The Firebase Auth API's first routes through HTTP: `accounts:signUp`,
/// `accounts:signInWithPassword`, `accounts:lookup` and the token refresh, with Firebase's
/// fields and error strings; one user base with the App Services API; and the emulator's
/// conveniences (any API key, unsigned tokens) in dev mode only.
@Suite(.timeLimit(.minutes(3))) struct FirebaseAPITests {
    static let accounts = "/identitytoolkit.googleapis.com/v1/accounts:"
    static let token = "/securetoken.googleapis.com/v1/token"

    static func call(_ c: Client, _ method: String, key: String? = "any-key", _ body: EJSON) async throws -> Reply {
        try await c.call(.post, accounts + method + (key.map { "?key=\($0)" } ?? ""), json: body)
    }

    /// A JWT's header and claims, unverified.
    static func parts(_ token: String?) throws -> (header: EJSON, claims: EJSON) {
        let parts = try #require(token).split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        return (
            try EJSON(parsing: try #require(Base64.decode(parts[0].utf8))), try EJSON(parsing: try #require(Base64.decode(parts[1].utf8)))
        )
    }

    /// Firebase's error body, and the SDKs' string in it.
    static func expectError(
        _ reply: Reply, _ status: Int, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, "\(reply.body)", sourceLocation: sourceLocation)
        let text = reply.body["error"]?["message"]?.stringValue ?? ""
        #expect(text == message || text.hasPrefix(message + " : "), "\(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.body["error"]?["code"]?.integerValue == Int64(status), sourceLocation: sourceLocation)
        #expect(reply.body["error"]?["errors"]?.arrayValue?.first?["message"]?.stringValue == text, sourceLocation: sourceLocation)
    }

    @Test func anAnonymousSignUpIsAUserWithFirebaseTokens() async throws {
        try await TestServer.run { c in
            let up = try await Self.call(c, "signUp", ["returnSecureToken": true])
            #expect(up.status == 200, "\(up.body)")
            #expect(up["kind"] == "identitytoolkit#SignupNewUserResponse" && up["expiresIn"] == "3600")
            let uid = try #require(up["localId"])
            // Dev mode: unsigned, as the emulator's.
            let (header, claims) = try Self.parts(up["idToken"])
            #expect(header["alg"] == "none")
            #expect(claims["iss"]?.stringValue == "https://securetoken.google.com/local" && claims["aud"] == "local")
            #expect(claims["sub"]?.stringValue == uid && claims["user_id"]?.stringValue == uid)
            #expect(claims["firebase"]?["sign_in_provider"] == "anonymous" && claims["provider_id"] == "anonymous")
            let exp = try #require(claims["exp"]?.integerValue), iat = try #require(claims["iat"]?.integerValue)
            #expect(exp - iat == 3600)

            let found = try await Self.call(c, "lookup", ["idToken": .string(try #require(up["idToken"]))])
            #expect(found.status == 200 && found.body["users"]?.arrayValue?.first?["localId"]?.stringValue == uid, "\(found.body)")

            // The refresh token gives new ID tokens; a form, as the JS SDK sends it.
            let form = Array("grant_type=refresh_token&refresh_token=\(try #require(up["refreshToken"]))".utf8)
            let refreshed = try await c.call(
                .post, Self.token + "?key=k", raw: form, headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(refreshed.status == 200, "\(refreshed.body)")
            #expect(refreshed["user_id"] == uid && refreshed["project_id"] == "local" && refreshed["token_type"] == "Bearer")
            #expect(try Self.parts(refreshed["id_token"]).claims["sub"]?.stringValue == uid)
            #expect(refreshed["refresh_token"] == up["refreshToken"] && refreshed["expires_in"] == "3600")
        }
    }

    @Test func emailPasswordAccountsAnswerInFirebaseWords() async throws {
        try await TestServer.run { c in
            let up = try await Self.call(c, "signUp", ["email": "ada@example.com", "password": "secret-1"])
            #expect(up.status == 200, "\(up.body)")
            #expect(up["email"] == "ada@example.com")
            let claims = try Self.parts(up["idToken"]).claims
            #expect(claims["email"] == "ada@example.com" && claims["email_verified"] == false)
            #expect(claims["firebase"]?["sign_in_provider"] == "password")
            #expect(claims["firebase"]?["identities"]?["email"] == ["ada@example.com"])

            Self.expectError(try await Self.call(c, "signUp", ["email": "ada@example.com", "password": "secret-2"]), 400, "EMAIL_EXISTS")
            Self.expectError(try await Self.call(c, "signUp", ["email": "bo@example.com", "password": "short"]), 400, "WEAK_PASSWORD")
            Self.expectError(try await Self.call(c, "signUp", ["email": "not an email", "password": "secret-1"]), 400, "INVALID_EMAIL")

            let inside = try await Self.call(c, "signInWithPassword", ["email": "ada@example.com", "password": "secret-1"])
            #expect(inside.status == 200 && inside["localId"] == up["localId"] && inside.body["registered"] == true, "\(inside.body)")
            // An unknown email and a wrong password answer alike.
            for (email, password) in [("ada@example.com", "wrong-one"), ("nobody@example.com", "secret-1")] {
                let refused = try await Self.call(c, "signInWithPassword", ["email": .string(email), "password": .string(password)])
                Self.expectError(refused, 400, "INVALID_LOGIN_CREDENTIALS")
            }
            let user = try await Self.call(c, "lookup", ["idToken": .string(try #require(inside["idToken"]))])
            let described = try #require(user.body["users"]?.arrayValue?.first)
            #expect(described["email"] == "ada@example.com" && described["emailVerified"] == false)
            #expect(described["providerUserInfo"]?.arrayValue?.first?["providerId"] == "password")
        }
    }

    @Test func requestsWithoutAKeyOrForAnUnknownMethodAreRefusedAsGoogleRefusesThem() async throws {
        try await TestServer.run { c in
            let none = try await Self.call(c, "signUp", key: nil, [:])
            Self.expectError(
                none, 403,
                "Method doesn't allow unregistered callers (callers without established identity). "
                    + "Please use API Key or other form of API consumer identity to call this API.")
            #expect(none.body["error"]?["status"] == "PERMISSION_DENIED")
            Self.expectError(try await Self.call(c, "signInWithCustomWidget", [:]), 404, "Method not found.")
            Self.expectError(try await Self.call(c, "lookup", ["idToken": "not.a.token"]), 400, "INVALID_ID_TOKEN")
            let noGrant = try await c.call(.post, Self.token + "?key=k", json: ["refresh_token": "x"])
            Self.expectError(noGrant, 400, "INVALID_GRANT_TYPE")
            let unknown = try await c.call(.post, Self.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": "x"])
            Self.expectError(unknown, 400, "INVALID_REFRESH_TOKEN")
        }
    }

    /// `signUp` with an `idToken` links an email and password to its user: an anonymous user
    /// upgraded keeps its id and signs in with the password from then on.
    @Test func anAnonymousUserIsUpgradedBySignUpWithItsIDToken() async throws {
        try await TestServer.run { c in
            let anon = try await Self.call(c, "signUp", [:])
            let uid = try #require(anon["localId"])
            _ = try await Self.call(c, "signUp", ["email": "taken@example.com", "password": "password1"])
            Self.expectError(
                try await Self.call(c, "signUp", ["idToken": anon.body["idToken"]!, "email": "taken@example.com", "password": "password1"]), 400,
                "EMAIL_EXISTS")
            Self.expectError(
                try await Self.call(c, "signUp", ["idToken": anon.body["idToken"]!, "email": "new@example.com", "password": "short"]), 400,
                "WEAK_PASSWORD")
            let linked = try await Self.call(c, "signUp", ["idToken": anon.body["idToken"]!, "email": "new@example.com", "password": "password1"])
            #expect(linked.status == 200 && linked["localId"] == uid && linked["email"] == "new@example.com", "\(linked.body)")
            let claims = try Self.parts(linked["idToken"]).claims
            #expect(claims["firebase"]?["sign_in_provider"] == "password" && claims["email"] == "new@example.com")
            // New tokens: the anonymous session's refresh token is done.
            #expect(linked["refreshToken"] != anon["refreshToken"])
            let old = try await c.call(
                .post, Self.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": anon.body["refreshToken"]!])
            Self.expectError(old, 400, "INVALID_REFRESH_TOKEN")
            let inside = try await Self.call(c, "signInWithPassword", ["email": "new@example.com", "password": "password1"])
            #expect(inside["localId"] == uid, "\(inside.body)")
            Self.expectError(
                try await Self.call(c, "signUp", ["idToken": linked.body["idToken"]!, "email": "other@example.com", "password": "password1"]),
                400, "PROVIDER_ALREADY_LINKED")
        }
    }

    /// A custom token's `claims` reach every ID token of the session it opens (refreshes, and
    /// the new session of a link); claims Firebase reserves, or over 1000 bytes, are refused.
    @Test func aCustomTokensClaimsReachItsSessionsIDTokens() async throws {
        try await TestServer.run { c in
            func token(_ claims: EJSON) -> EJSON {
                .string(
                    FirebaseIDTokens.unsigned([
                        "aud": .string(FirebaseAccounts.customTokenAudience), "uid": "claimed-1", "iat": 1, "exp": 9_999_999_999,
                        "claims": claims,
                    ]))
            }
            let signedIn = try await Self.call(c, "signInWithCustomToken", ["token": token(["role": "admin", "premium": true])])
            #expect(signedIn.status == 200, "\(signedIn.body)")
            let claims = try Self.parts(signedIn["idToken"]).claims
            #expect(claims["role"] == "admin" && claims["premium"] == true && claims["sub"] == "claimed-1", "\(claims)")
            let refreshed = try await c.call(
                .post, Self.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": signedIn.body["refreshToken"]!])
            #expect(try Self.parts(refreshed["id_token"]).claims["role"] == "admin", "every refresh's")
            let linked = try await Self.call(
                c, "signUp", ["idToken": signedIn.body["idToken"]!, "email": "claimed@example.com", "password": "password1"])
            #expect(try Self.parts(linked["idToken"]).claims["role"] == "admin", "the new session of a link: \(linked.body)")
            // Another sign-in of the user without claims has none.
            let plain = try await Self.call(c, "signInWithPassword", ["email": "claimed@example.com", "password": "password1"])
            #expect(try Self.parts(plain["idToken"]).claims["role"] == nil)

            for bad: EJSON in [["sub": "someone-else"], ["firebase": "x"], ["big": .string(String(repeating: "x", count: 1001))], "text"] {
                Self.expectError(try await Self.call(c, "signInWithCustomToken", ["token": token(bad)]), 400, "INVALID_CUSTOM_TOKEN")
            }
        }
    }

    /// The emulator's `oobCodes` of the project: the action codes of the mails sent.
    static func oobCodes(_ c: Client) async throws -> [EJSON] {
        let listed = try await c.call(.get, "/emulator/v1/projects/local/oobCodes")
        #expect(listed.status == 200, "\(listed.body)")
        return listed.body["oobCodes"]?.arrayValue ?? []
    }

    /// `sendOobCode` mails a reset link (an unknown email answers alike and gets none);
    /// `resetPassword` checks its code, then sets the password with it, once; a verification
    /// code applied by `update` proves the email. The emulator's `oobCodes` lists the codes.
    @Test func actionCodesResetThePasswordAndProveTheEmail() async throws {
        try await TestServer.run { c in
            let up = try await Self.call(c, "signUp", ["email": "oob@example.com", "password": "password1"])
            let sent = try await Self.call(c, "sendOobCode", key: "key-1", ["requestType": "PASSWORD_RESET", "email": "oob@example.com"])
            #expect(sent.status == 200 && sent["email"] == "oob@example.com", "\(sent.body)")
            let nobody = try await Self.call(c, "sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            #expect(nobody.status == 200 && nobody["email"] == "nobody@example.com")
            let codes = try await Self.oobCodes(c)
            #expect(codes.count == 1 && codes.first?["email"] == "oob@example.com" && codes.first?["requestType"] == "PASSWORD_RESET", "\(codes)")
            let code = try #require(codes.first?["oobCode"]?.stringValue)
            let link = try #require(codes.first?["oobLink"]?.stringValue)
            #expect(link.contains("/__/auth/action?mode=resetPassword&oobCode=\(code)&apiKey=key-1&lang=en"), "\(link)")

            Self.expectError(try await Self.call(c, "resetPassword", ["oobCode": "not-a-code"]), 400, "INVALID_OOB_CODE")
            let checked = try await Self.call(c, "resetPassword", ["oobCode": .string(code)])
            #expect(checked["email"] == "oob@example.com" && checked["requestType"] == "PASSWORD_RESET", "\(checked.body)")
            Self.expectError(try await Self.call(c, "resetPassword", ["oobCode": .string(code), "newPassword": "short"]), 400, "WEAK_PASSWORD")
            let reset = try await Self.call(c, "resetPassword", ["oobCode": .string(code), "newPassword": "password2"])
            #expect(reset.status == 200 && reset["email"] == "oob@example.com", "\(reset.body)")
            Self.expectError(
                try await Self.call(c, "resetPassword", ["oobCode": .string(code), "newPassword": "password3"]), 400, "INVALID_OOB_CODE")
            // The reset ended the sessions of before, and proved the email.
            Self.expectError(try await Self.call(c, "lookup", ["idToken": up.body["idToken"]!]), 400, "INVALID_ID_TOKEN")
            let inside = try await Self.call(c, "signInWithPassword", ["email": "oob@example.com", "password": "password2"])
            #expect(try Self.parts(inside["idToken"]).claims["email_verified"] == true, "\(inside.body)")

            // Verification: a sign-up's unproven email, proven by the code of its mail.
            let other = try await Self.call(c, "signUp", ["email": "verify@example.com", "password": "password1"])
            let verify = try await Self.call(c, "sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": other.body["idToken"]!])
            #expect(verify.status == 200 && verify["email"] == "verify@example.com", "\(verify.body)")
            let verifyCode = try #require(try await Self.oobCodes(c).last { $0["requestType"] == "VERIFY_EMAIL" }?["oobCode"])
            let applied = try await Self.call(c, "update", ["oobCode": verifyCode])
            #expect(applied.status == 200 && applied["email"] == "verify@example.com" && applied.body["emailVerified"] == true, "\(applied.body)")
            #expect(applied["localId"] == other["localId"])
            Self.expectError(try await Self.call(c, "update", ["oobCode": verifyCode]), 400, "INVALID_OOB_CODE")
            let proven = try await Self.call(c, "signInWithPassword", ["email": "verify@example.com", "password": "password1"])
            #expect(try Self.parts(proven["idToken"]).claims["email_verified"] == true, "\(proven.body)")
            Self.expectError(
                try await Self.call(c, "sendOobCode", ["requestType": "RECOVER_EMAIL", "email": "verify@example.com"]), 400,
                "OPERATION_NOT_ALLOWED")

            // The Admin API's link: a code stored, no mail sent.
            let before = try await Self.oobCodes(c).count
            let generated = try await FirebaseAdminAPITests.call(
                c, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "oob@example.com", "returnOobLink": true])
            #expect(generated.status == 200 && generated["oobLink"]?.contains("mode=resetPassword") == true, "\(generated.body)")
            #expect(try await Self.oobCodes(c).count == before)
            let viaLink = try await Self.call(c, "resetPassword", ["oobCode": generated.body["oobCode"]!, "newPassword": "password4"])
            #expect(viaLink.status == 200, "\(viaLink.body)")
            let missing = try await FirebaseAdminAPITests.call(
                c, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com", "returnOobLink": true])
            Self.expectError(missing, 400, "EMAIL_NOT_FOUND")
        }
    }

    /// An email link signs in (making the account, without a password, when there is none),
    /// once, for its own email; the owner of an address someone registered unproven takes it
    /// over: that someone's password and sessions end.
    @Test func anEmailLinkSignsInOnceAndTakesOverAnUnprovenAccount() async throws {
        try await TestServer.run { c in
            func send(_ email: String, continueUrl: String? = "https://app.example.com/finish") async throws -> Reply {
                var body: EJSONDocument = ["requestType": "EMAIL_SIGNIN", "email": .string(email), "canHandleCodeInApp": true]
                if let continueUrl { body["continueUrl"] = .string(continueUrl) }
                return try await Self.call(c, "sendOobCode", .document(body))
            }
            func code(_ email: String) async throws -> String {
                try #require(
                    try await Self.oobCodes(c).last { $0["email"]?.stringValue == email && $0["requestType"] == "EMAIL_SIGNIN" }?["oobCode"]?
                        .stringValue)
            }
            Self.expectError(try await send("link@example.com", continueUrl: nil), 400, "MISSING_CONTINUE_URI")
            #expect(try await send("link@example.com").status == 200)
            let listed = try #require(try await Self.oobCodes(c).last)
            #expect(listed["oobLink"]?.stringValue?.hasPrefix("https://app.example.com/finish?mode=signIn&oobCode=") == true, "\(listed)")
            let linkCode = try await code("link@example.com")
            Self.expectError(
                try await Self.call(c, "signInWithEmailLink", ["email": "other@example.com", "oobCode": .string(linkCode)]), 400, "INVALID_EMAIL")
            let first = try await Self.call(c, "signInWithEmailLink", ["email": "link@example.com", "oobCode": .string(linkCode)])
            #expect(first.status == 200 && first.body["isNewUser"] == true && first["email"] == "link@example.com", "\(first.body)")
            #expect(try Self.parts(first["idToken"]).claims["email_verified"] == true)
            Self.expectError(
                try await Self.call(c, "signInWithEmailLink", ["email": "link@example.com", "oobCode": .string(linkCode)]), 400, "INVALID_OOB_CODE")
            #expect(try await send("link@example.com").status == 200)
            let again = try await Self.call(
                c, "signInWithEmailLink", ["email": "link@example.com", "oobCode": .string(try await code("link@example.com"))])
            #expect(again["localId"] == first["localId"] && again.body["isNewUser"] == false, "\(again.body)")

            // Someone registers the victim's address first (unproven), then the owner signs in by link.
            let squatter = try await Self.call(c, "signUp", ["email": "victim@example.com", "password": "squatter1"])
            #expect(try await send("victim@example.com").status == 200)
            let owner = try await Self.call(
                c, "signInWithEmailLink", ["email": "victim@example.com", "oobCode": .string(try await code("victim@example.com"))])
            #expect(owner.status == 200 && owner["localId"] == squatter["localId"], "\(owner.body)")
            Self.expectError(
                try await Self.call(c, "signInWithPassword", ["email": "victim@example.com", "password": "squatter1"]), 400,
                "INVALID_LOGIN_CREDENTIALS")
            Self.expectError(try await Self.call(c, "lookup", ["idToken": squatter.body["idToken"]!]), 400, "INVALID_ID_TOKEN")
        }
    }

    /// With an `idToken`, an email link's email becomes the user's (no password), proven; an
    /// email another user signs in with is `EMAIL_EXISTS`, and a user with another email has its
    /// password provider already.
    @Test func anEmailLinkLinksItsEmailToTheSignedInUser() async throws {
        try await TestServer.run { c in
            func code(_ email: String) async throws -> EJSON {
                let sent = try await Self.call(
                    c, "sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": .string(email), "continueUrl": "https://app.example.com/finish"])
                #expect(sent.status == 200, "\(sent.body)")
                return try #require(
                    try await Self.oobCodes(c).last { $0["email"]?.stringValue == email && $0["requestType"] == "EMAIL_SIGNIN" }?["oobCode"])
            }
            let anon = try await Self.call(c, "signUp", [:])
            let linked = try await Self.call(
                c, "signInWithEmailLink",
                ["email": "anon.link@example.com", "oobCode": try await code("anon.link@example.com"), "idToken": anon.body["idToken"]!])
            #expect(linked.status == 200 && linked["localId"] == anon["localId"], "\(linked.body)")
            let claims = try Self.parts(linked["idToken"]).claims
            #expect(claims["email"] == "anon.link@example.com" && claims["email_verified"] == true, "\(claims)")
            // The email now signs in by link as that user.
            let back = try await Self.call(
                c, "signInWithEmailLink", ["email": "anon.link@example.com", "oobCode": try await code("anon.link@example.com")])
            #expect(back["localId"] == anon["localId"] && back.body["isNewUser"] == false, "\(back.body)")

            let taken = try await Self.call(c, "signUp", ["email": "taken@example.com", "password": "password1"])
            let other = try await Self.call(c, "signUp", [:])
            Self.expectError(
                try await Self.call(
                    c, "signInWithEmailLink",
                    ["email": "taken@example.com", "oobCode": try await code("taken@example.com"), "idToken": other.body["idToken"]!]),
                400, "EMAIL_EXISTS")
            // The other user's password still works: nothing of theirs changed.
            #expect(try await Self.call(c, "signInWithPassword", ["email": "taken@example.com", "password": "password1"]).status == 200)
            Self.expectError(
                try await Self.call(
                    c, "signInWithEmailLink",
                    ["email": "fresh@example.com", "oobCode": try await code("fresh@example.com"), "idToken": taken.body["idToken"]!]),
                400, "PROVIDER_ALREADY_LINKED")
        }
    }

    /// A mail's `continueUrl` must be of an origin the app lists: never somebody else's page.
    @Test func aContinueURLMustBeAnOriginTheAppAllows() async throws {
        var config = Self.production()
        config.apps[0].allowedRequestOrigins = RequestOrigins(any: false, origins: ["https://shop.example.com"])
        try await TestServer.run(config) { c in
            let key = "key-of-project-one"
            #expect(try await Self.call(c, "signUp", key: key, ["email": "go@example.com", "password": "password1"]).status == 200)
            func send(_ url: String) async throws -> Reply {
                try await Self.call(
                    c, "sendOobCode", key: key, ["requestType": "PASSWORD_RESET", "email": "go@example.com", "continueUrl": .string(url)])
            }
            for foreign in ["https://evil.example.com/after", "https://shop.example.com.evil.com/", "http://shop.example.com/after"] {
                Self.expectError(try await send(foreign), 400, "UNAUTHORIZED_DOMAIN")
            }
            Self.expectError(try await send("javascript:alert(1)"), 400, "INVALID_CONTINUE_URI")
            #expect(try await send("https://shop.example.com/after?x=1").status == 200)
        }
    }

    /// `createAuthUri` tells how an email signs in (`fetchSignInMethodsForEmail`), unless the
    /// app hides which emails have accounts.
    @Test func createAuthUriTellsHowAnEmailSignsInUnlessTheAppHidesIt() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("known@example.com")
            func methods(_ email: String) async throws -> Reply {
                try await Self.call(c, "createAuthUri", ["identifier": .string(email), "continueUri": "http://localhost"])
            }
            let known = try await methods("known@example.com")
            #expect(known.status == 200 && known.body["registered"] == true && known.body["signinMethods"] == ["password"], "\(known.body)")
            #expect(known["sessionId"] != nil)
            let fake = FormEncoding.encode([
                ("id_token", #"{"sub": "g-9", "email": "g@example.com", "email_verified": true}"#), ("providerId", "google.com"),
            ])
            #expect(try await Self.call(c, "signInWithIdp", ["postBody": .string(fake), "requestUri": "http://localhost"]).status == 200)
            let google = try await methods("g@example.com")
            #expect(google.body["signinMethods"] == ["google.com"] && google.body["allProviders"] == ["google.com"], "\(google.body)")
            let unknown = try await methods("nobody@example.com")
            #expect(unknown.body["registered"] == false && unknown.body["signinMethods"] == [], "\(unknown.body)")
            Self.expectError(try await methods("not an email"), 400, "INVALID_IDENTIFIER")
        }
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app { $0.emailEnumerationProtection = true }])) { c in
            try await c.registerConfirmed("known@example.com")
            let hidden = try await Self.call(c, "createAuthUri", ["identifier": "known@example.com", "continueUri": "http://localhost"])
            #expect(hidden.status == 200 && hidden["sessionId"] != nil && hidden.body["registered"] == nil, "\(hidden.body)")
        }
    }

    /// A user made through either API is the same user through the other.
    @Test func oneUserBaseForBothAPIs() async throws {
        try await TestServer.run { c in
            let up = try await Self.call(c, "signUp", ["email": "fb@example.com", "password": "password1"])
            let viaRealm = try await c.emailLogin("fb@example.com", "password1")
            #expect(viaRealm.status == 200 && viaRealm["user_id"] == up["localId"], "\(viaRealm.body)")

            try await c.registerConfirmed("realm@example.com")
            let realmUser = try await c.emailLogin("realm@example.com", "password1")
            let viaFirebase = try await Self.call(c, "signInWithPassword", ["email": "realm@example.com", "password": "password1"])
            #expect(viaFirebase.status == 200 && viaFirebase["localId"] == realmUser["user_id"], "\(viaFirebase.body)")
            // Confirmed by mail: the email is proven.
            #expect(try Self.parts(viaFirebase["idToken"]).claims["email_verified"] == true)

            // A logout through App Services ends the Firebase tokens of that session too.
            let refresh = try #require(viaFirebase["refreshToken"])
            #expect(try await c.call(.delete, Routes.session, token: refresh).status == 200)
            Self.expectError(try await Self.call(c, "lookup", ["idToken": .string(try #require(viaFirebase["idToken"]))]), 400, "INVALID_ID_TOKEN")
            let again = try await c.call(.post, Self.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": .string(refresh)])
            Self.expectError(again, 400, "INVALID_REFRESH_TOKEN")
        }
    }

    /// Firebase's sign-up logs in before the email is proven, so the email vouches for nothing
    /// until a mail proves it: here a reset by mail, after which the next login says so.
    @Test func anUnprovenEmailVouchesForNothingUntilAMailProvesIt() async throws {
        try await TestServer.run { c in
            let up = try await Self.call(c, "signUp", ["email": "eve@example.com", "password": "password1"])
            #expect(up.status == 200)
            // Not an email holder: another sign-up method for the address is not refused as taken.
            let methods = try await c.call(.get, Routes.app("local") + "/auth/methods?email=eve@example.com")
            #expect(methods.status == 200 && methods.body["providers"]?.arrayValue?.isEmpty != false, "\(methods.body)")

            #expect(try await c.userpass("reset/send", ["email": "eve@example.com"]).status == 200)
            let mail = try #require(try await c.outbox("eve@example.com", kind: "reset").last)
            let reset = try await c.userpass(
                "reset", ["token": mail["token"]!, "tokenId": mail["tokenId"]!, "password": "password2"])
            #expect(reset.status == 200, "\(reset.body)")
            let inside = try await Self.call(c, "signInWithPassword", ["email": "eve@example.com", "password": "password2"])
            #expect(try Self.parts(inside["idToken"]).claims["email_verified"] == true, "\(inside.body)")
        }
    }

    /// `accounts:update` changes the profile (the same `name` and `picture_url` the App Services
    /// profile shows), the password (ending every other session) and the providers;
    /// `accounts:delete` deletes the user.
    @Test func updateAndDelete() async throws {
        try await TestServer.run { c in
            let up = try await Self.call(c, "signUp", ["email": "up@example.com", "password": "password1"])
            let idToken = try #require(up["idToken"])
            let other = try await c.emailLogin("up@example.com", "password1")
            #expect(other.status == 200)

            let named = try await Self.call(
                c, "update", ["idToken": .string(idToken), "displayName": "Ada L.", "photoUrl": "https://example.com/ada.png"])
            #expect(named.status == 200 && named["displayName"] == "Ada L." && named["photoUrl"] == "https://example.com/ada.png", "\(named.body)")
            let profile = try await c.profile(try #require(other["access_token"]))
            #expect(profile.body["data"]?["name"] == "Ada L." && profile.body["data"]?["picture_url"] == "https://example.com/ada.png")
            let refreshed = try await c.call(
                .post, Self.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": up.body["refreshToken"]!])
            #expect(try Self.parts(refreshed["id_token"]).claims["name"] == "Ada L.")
            let cleared = try await Self.call(c, "update", ["idToken": .string(idToken), "deleteAttribute": ["PHOTO_URL"]])
            #expect(cleared.status == 200 && cleared["photoUrl"] == nil && cleared["displayName"] == "Ada L.", "\(cleared.body)")

            // A new password: the old one fails, the other session ended, this one stays.
            Self.expectError(try await Self.call(c, "update", ["idToken": .string(idToken), "password": "short"]), 400, "WEAK_PASSWORD")
            #expect(try await Self.call(c, "update", ["idToken": .string(idToken), "password": "password2"]).status == 200)
            Self.expectError(
                try await Self.call(c, "signInWithPassword", ["email": "up@example.com", "password": "password1"]), 400,
                "INVALID_LOGIN_CREDENTIALS")
            #expect(try await c.refresh(try #require(other["refresh_token"])).status == 401)
            #expect(try await Self.call(c, "lookup", ["idToken": .string(idToken)]).status == 200)
            Self.expectError(
                try await Self.call(c, "update", ["idToken": .string(idToken), "deleteProvider": ["password"]]), 400, "OPERATION_NOT_ALLOWED")

            let deleted = try await Self.call(c, "delete", ["idToken": .string(idToken)])
            #expect(deleted.status == 200 && deleted["kind"] == "identitytoolkit#DeleteAccountResponse", "\(deleted.body)")
            Self.expectError(try await Self.call(c, "lookup", ["idToken": .string(idToken)]), 400, "INVALID_ID_TOKEN")
            Self.expectError(
                try await Self.call(c, "signInWithPassword", ["email": "up@example.com", "password": "password2"]), 400,
                "INVALID_LOGIN_CREDENTIALS")
        }
    }

    /// With `recentLoginSeconds`, a password change, both ways of changing the email and a
    /// deletion need a recent login.
    @Test func oldLoginsChangeNoPasswordAndDeleteNothing() async throws {
        var app = AppConfiguration(id: "local")
        app.recentLoginSeconds = 300
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let up = try await Self.call(c, "signUp", ["email": "old@example.com", "password": "password1"])
            try await TOTPHarness.now(c, advancing: 301)
            let refreshed = try await c.call(
                .post, Self.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": up.body["refreshToken"]!])
            let idToken = try #require(refreshed["id_token"])
            Self.expectError(
                try await Self.call(c, "update", ["idToken": .string(idToken), "password": "password2"]), 400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            Self.expectError(
                try await Self.call(c, "update", ["idToken": .string(idToken), "email": "new@example.com"]), 400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            Self.expectError(
                try await Self.call(
                    c, "sendOobCode", ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": "new@example.com"]),
                400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            Self.expectError(try await Self.call(c, "delete", ["idToken": .string(idToken)]), 400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            // The profile is no secret: it changes.
            #expect(try await Self.call(c, "update", ["idToken": .string(idToken), "displayName": "Old"]).status == 200)
        }
    }

    /// The emulator's `DELETE /emulator/v1/projects/PROJECT/accounts` empties the project's app,
    /// in dev mode only.
    @Test func theEmulatorsWipeDeletesEveryUserInDevModeOnly() async throws {
        try await TestServer.run { c in
            _ = try await Self.call(c, "signUp", ["email": "gone@example.com", "password": "password1"])
            #expect(try await c.call(.delete, "/emulator/v1/projects/local/accounts").status == 200)
            Self.expectError(
                try await Self.call(c, "signInWithPassword", ["email": "gone@example.com", "password": "password1"]), 400,
                "INVALID_LOGIN_CREDENTIALS")
            Self.expectError(try await c.call(.delete, "/emulator/v1/projects/no-such-project/accounts"), 404, "PROJECT_NOT_FOUND")
        }
        try await TestServer.run(Self.production()) { c in
            let up = try await Self.call(c, "signUp", key: "key-of-project-one", ["email": "kept@example.com", "password": "password1"])
            #expect(up.status == 200)
            #expect(try await c.call(.delete, "/emulator/v1/projects/project-one/accounts").status == 404)
            let kept = try await Self.call(
                c, "signInWithPassword", key: "key-of-project-one", ["email": "kept@example.com", "password": "password1"])
            #expect(kept.status == 200, "\(kept.body)")
        }
    }

    /// The emulator's config is the app's settings: duplicate emails (one account per email) and
    /// email privacy (enumeration protection), changed at once.
    @Test func theEmulatorsConfigIsTheAppsSettings() async throws {
        try await TestServer.run { c in
            let path = "/emulator/v1/projects/local/config"
            let patched = try await c.call(
                .patch, path, json: ["signIn": ["allowDuplicateEmails": false], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
            #expect(patched.status == 200, "\(patched.body)")
            #expect(
                patched.body["signIn"]?["allowDuplicateEmails"] == false && patched.body["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == true)
            let config = try await c.call(.get, "\(Routes.dev)/apps/local/config")
            #expect(config.body["oneAccountPerEmail"] == true && config.body["emailEnumerationProtection"] == true, "\(config.body)")
            let read = try await c.call(.get, path)
            #expect(read.body["signIn"]?["allowDuplicateEmails"] == false, "\(read.body)")
            let hidden = try await Self.call(c, "createAuthUri", ["identifier": "a@example.com", "continueUri": "http://localhost"])
            #expect(hidden.body["registered"] == nil, "\(hidden.body)")
            Self.expectError(try await c.call(.patch, path, json: ["blockingFunctions": [:]]), 400, "INVALID_ARGUMENT")
            Self.expectError(try await c.call(.get, "/emulator/v1/projects/no-such-project/config"), 404, "PROJECT_NOT_FOUND")
        }
    }

    /// The dev API's config changes the project an app answers as, at once.
    @Test func theDevAPIsConfigNamesTheProject() async throws {
        try await TestServer.run { c in
            let patch = try await c.call(
                .patch, "\(Routes.dev)/apps/local/config", json: ["firebase": ["projectId": "patched-project", "apiKeys": ["patched-key-1"]]])
            #expect(patch.status == 200, "\(patch.body)")
            let up = try await Self.call(c, "signUp", key: "patched-key-1", [:])
            #expect(try Self.parts(up["idToken"]).claims["aud"] == "patched-project", "\(up.body)")
            // Dev mode still takes any key, for the first app's project.
            let any = try await Self.call(c, "signUp", key: "some-other-key", [:])
            #expect(try Self.parts(any["idToken"]).claims["aud"] == "patched-project")
            // A service account's key must be a public key: the config names the field.
            let badKey = try await c.call(
                .patch, "\(Routes.dev)/apps/local/config",
                json: [
                    "firebase": [
                        "projectId": "patched-project", "apiKeys": ["patched-key-1"],
                        "serviceAccounts": [["clientEmail": "sa@example.com", "publicKey": "not a key"]],
                    ]
                ])
            #expect(badKey.status == 400 && badKey.message?.contains("serviceAccounts[0].publicKey") == true, "\(badKey.body)")
        }
    }

    // MARK: production: the emulator's conveniences never reach it

    static func production() -> ServerConfiguration {
        var one = AppConfiguration(id: "one")
        one.firebase = FirebaseConfiguration(projectId: "project-one", apiKeys: ["key-of-project-one"])
        var two = AppConfiguration(id: "two")
        two.firebase = FirebaseConfiguration(projectId: "project-two", apiKeys: ["key-of-project-two"])
        let plain = AppConfiguration(id: "plain")
        var config = TestServer.configuration(apps: [one, two, plain], dev: false)
        for i in config.apps.indices { config.apps[i].providers.userpass?.autoConfirm = true }
        return config
    }

    @Test func outsideDevModeOnlyAListedKeyAndASignedTokenOfTheProjectAreTaken() async throws {
        try await TestServer.run(Self.production()) { c in
            Self.expectError(try await Self.call(c, "signUp", key: "any-key", [:]), 400, "API key not valid. Please pass a valid API key.")
            // An app without `firebase` is no project, whatever its id.
            Self.expectError(try await Self.call(c, "signUp", key: "plain", [:]), 400, "API key not valid. Please pass a valid API key.")

            let up = try await Self.call(c, "signUp", key: "key-of-project-one", ["email": "p@example.com", "password": "password1"])
            #expect(up.status == 200, "\(up.body)")
            let idToken = try #require(up["idToken"])
            let (header, claims) = try Self.parts(idToken)
            #expect(header["alg"] == "HS256" && header["kid"] == "one")
            #expect(claims["aud"] == "project-one")
            #expect(try await Self.call(c, "lookup", key: "key-of-project-one", ["idToken": .string(idToken)]).status == 200)

            // Another project's key: its token is refused there.
            Self.expectError(
                try await Self.call(c, "lookup", key: "key-of-project-two", ["idToken": .string(idToken)]), 400, "INVALID_ID_TOKEN")
            // The same claims unsigned, as the emulator takes them: refused.
            var forged = try #require(claims.documentValue)
            forged["exp"] = .int64(Int64(Date().timeIntervalSince1970) + 3000)
            Self.expectError(
                try await Self.call(c, "lookup", key: "key-of-project-one", ["idToken": .string(FirebaseIDTokens.unsigned(forged))]),
                400, "INVALID_ID_TOKEN")
            // A refresh token of project one is no token of project two.
            let other = try await c.call(
                .post, Self.token + "?key=key-of-project-two", json: ["grant_type": "refresh_token", "refresh_token": up.body["refreshToken"]!])
            Self.expectError(other, 400, "INVALID_REFRESH_TOKEN")
            // The Admin SDKs' emulator custom tokens (unsigned): refused.
            let unsigned = FirebaseIDTokens.unsigned([
                "aud": .string(FirebaseAccounts.customTokenAudience), "uid": "someone", "iat": 1, "exp": 9_999_999_999,
            ])
            Self.expectError(
                try await Self.call(c, "signInWithCustomToken", key: "key-of-project-one", ["token": .string(unsigned)]), 400,
                "INVALID_CUSTOM_TOKEN")
            // An App Services access token of the same user is no Firebase ID token.
            let realm = try await c.inApp("one").emailLogin("p@example.com", "password1")
            Self.expectError(
                try await Self.call(c, "lookup", key: "key-of-project-one", ["idToken": realm.body["access_token"]!]), 400, "INVALID_ID_TOKEN")
        }
    }
}

/// The app's hooks run for Firebase sign-ins as for any login: a refusal reaches the client
/// as a blocking function's does, and `accessTokenClaims` lands at the ID token's top level,
/// after a refresh too.
@Suite(.timeLimit(.minutes(3))) struct FirebaseHookTests {
    @Test func hooksRefuseAndAddClaims() async throws {
        try await AuthHookTests.withServer { c, _ in
            try await AuthHookTests.setHooks(c, ["beforeUserCreated": "gate", "accessTokenClaims": "claims"])
            let refused = try await FirebaseAPITests.call(c, "signUp", [:])
            FirebaseAPITests.expectError(refused, 400, "BLOCKING_FUNCTION_ERROR_RESPONSE")
            #expect(refused.body["error"]?["message"]?.stringValue?.hasSuffix("no anonymous sign-ups") == true, "\(refused.body)")
            let outside = try await FirebaseAPITests.call(c, "signUp", ["email": "x@elsewhere.org", "password": "password1"])
            FirebaseAPITests.expectError(outside, 400, "BLOCKING_FUNCTION_ERROR_RESPONSE")
            // Refused before anything was written: the address is free.
            #expect(try await c.emailLogin("x@elsewhere.org", "password1").status == 401)

            let up = try await FirebaseAPITests.call(c, "signUp", ["email": "y@example.com", "password": "password1"])
            #expect(up.status == 200, "\(up.body)")
            let claims = try FirebaseAPITests.parts(up["idToken"]).claims
            #expect(claims["tenant"] == "acme" && claims["roles"] == ["reader"])
            #expect(claims["iss"]?.stringValue == "https://securetoken.google.com/local", "a hook never replaces a claim of the token's own")
            // The hooks' event names the API the login came through.
            #expect(claims["api"] == "firebase" && claims["via"] == "local-userpass", "\(claims)")
            #expect(try await c.emailLogin("y@example.com", "password1").status == 200)
            let refreshed = try await c.call(
                .post, FirebaseAPITests.token + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": up.body["refreshToken"]!])
            #expect(try FirebaseAPITests.parts(refreshed["id_token"]).claims["tenant"] == "acme")
        }
    }
}
