// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// Google's own Firebase Admin SDK (firebase-admin, from PyPI) in its emulator mode: it reads
/// authsh's ID tokens as it reads the Auth emulator's (and refuses them for another project),
/// and manages authsh's users through the Admin API.
@Suite(.timeLimit(.minutes(3))) struct FirebaseAdminSDKTests {
    /// Runs a script of `Tests/firebase` against a live dev server; its report.
    static func run(_ script: String, _ c: Client) async throws -> EJSON {
        try await Self.script(script, ["127.0.0.1:\(try #require(c.client.port))", "local", "any-api-key"])
    }

    /// Runs a script of `Tests/firebase` with `arguments`; the JSON object of its last line.
    static func script(_ script: String, _ arguments: [String]) async throws -> EJSON {
        let output = Scratch.path("firebase-admin") + ".json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let sdk = try ChildProcess(
            [Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/firebase/" + script] + arguments, output: output)
        try await sdk.waitForExit()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(sdk.exitStatus == 0, "\(text)")
        return try EJSON(parsing: Array((text.split(separator: "\n").last.map(String.init) ?? "").utf8))
    }

    /// A custom token the Admin SDK signed with a service account (production: RS256) signs in
    /// where the app lists that account, and nowhere else; the same email with another key is
    /// refused.
    @Test func aServiceAccountsCustomTokenSignsInOutsideDevMode() async throws {
        let made = try await Self.script("signed-custom-token.py", ["project-one", "backend-user-1"])
        let email = try #require(made["clientEmail"]?.stringValue), pem = try #require(made["publicKey"]?.stringValue)
        var config = FirebaseAPITests.production()
        config.apps[0].firebase?.serviceAccounts = [.init(clientEmail: email, publicKey: pem)]
        try await TestServer.run(config) { c in
            func exchange(_ token: EJSON?, key: String = "key-of-project-one") async throws -> Reply {
                try await FirebaseAPITests.call(c, "signInWithCustomToken", key: key, ["token": try #require(token), "returnSecureToken": true])
            }
            let signedIn = try await exchange(made["token"])
            #expect(signedIn.status == 200 && signedIn["localId"] == "backend-user-1" && signedIn.body["isNewUser"] == true, "\(signedIn.body)")
            let claims = try FirebaseAPITests.parts(signedIn["idToken"]).claims
            #expect(claims["firebase"]?["sign_in_provider"] == "custom")
            #expect(claims["tier"] == "gold", "the custom token's claims reach its ID tokens: \(claims)")
            let refreshed = try await c.call(
                .post, FirebaseAPITests.token + "?key=key-of-project-one",
                json: ["grant_type": "refresh_token", "refresh_token": signedIn.body["refreshToken"]!])
            #expect(try FirebaseAPITests.parts(refreshed["id_token"]).claims["tier"] == "gold", "and every refresh's")
            FirebaseAPITests.expectError(try await exchange(made["forged"]), 400, "INVALID_CUSTOM_TOKEN")
            // Project two lists no service account.
            FirebaseAPITests.expectError(try await exchange(made["token"], key: "key-of-project-two"), 400, "INVALID_CUSTOM_TOKEN")
        }
    }

    /// create_user, get_user(_by_email), set_custom_user_claims, revoke_refresh_tokens with
    /// verify_id_token(check_revoked=True), update_user (disabled, password), import_users with
    /// Firebase's scrypt (firebase/scrypt's sample hash), bcrypt, PBKDF2 and HMAC, list_users,
    /// delete_user(s), generate_password_reset_link and generate_email_verification_link; each
    /// change seen through the client API.
    @Test func theAdminSDKManagesUsers() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            let r = try await Self.run("admin-users.py", c)
            #expect(
                r["created"] == [
                    "uid": "made-1", "email": "made@example.com", "name": "Made", "providers": ["password"], "byEmail": "made-1", "signIn": "made-1",
                ], "\(r)")
            #expect(r["duplicates"] == ["uid": "UidAlreadyExistsError", "email": "EmailAlreadyExistsError", "missing": "UserNotFoundError"])
            #expect(r["claims"]?["token"] == ["admin": true, "tier": 2] && r["claims"]?["record"] == ["admin": true, "tier": 2], "\(r)")
            #expect(r["revoked"] == ["idToken": "RevokedIdTokenError", "refresh": "INVALID_REFRESH_TOKEN", "validAfter": true], "\(r)")
            #expect(r["disabled"] == ["record": true, "name": "Made Again", "signIn": "USER_DISABLED"], "\(r)")
            #expect(r["enabled"] == ["signIn": true, "oldPassword": "INVALID_LOGIN_CREDENTIALS"], "\(r)")
            #expect(r["resetLink"] == ["mode": "resetPassword", "status": 200, "signIn": true], "\(r)")
            #expect(r["verifyLink"] == ["status": 200, "verified": true], "\(r)")
            for uid in ["imported-scrypt", "imported-bcrypt", "imported-pbkdf2", "imported-hmac"] {
                let imported = r["imported"]?[uid]
                #expect(imported?["success"] == 1 && imported?["signIn"]?.stringValue == uid, "\(uid): \(r)")
                #expect(imported?["again"] == true && imported?["wrong"] == "INVALID_LOGIN_CREDENTIALS", "\(uid): \(r)")
            }
            #expect(r["imported"]?["imported-scrypt"]?["claims"] == true)
            #expect(r["imported"]?["providers"] == ["github.com", "password"], "\(r)")
            #expect(r["importedTwice"] == ["failures": 1, "index": [0]], "\(r)")
            #expect(r["listed"] == ["imported-bcrypt", "imported-hmac", "imported-pbkdf2", "imported-scrypt", "made-1"], "\(r)")
            #expect(r["deleted"] == ["successes": 3, "failures": 0, "gone": "UserNotFoundError", "signIn": "INVALID_LOGIN_CREDENTIALS"], "\(r)")
            #expect(r["customToken"] == ["status": 200, "localId": "made-1"], "\(r)")
            #expect(
                r["phone"] == [
                    "made": "+15550100050", "found": "phoned-1", "duplicate": "PhoneNumberAlreadyExistsError", "signIn": "phoned-1",
                    "old": "UserNotFoundError", "invalid": "ValueError", "removed": nil,
                ], "\(r)")
        }
    }

    @Test func theAdminSDKVerifiesIDTokens() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            let report = try await Self.run("admin-sdk.py", c)
            let text = "\(report)"
            let verified = try #require(report["verified"], "\(text)")
            #expect(verified["uid"] == verified["localId"] && verified["email"] == "sdk@example.com", "\(text)")
            #expect(verified["provider"] == "password")
            #expect(report["otherProject"] == "InvalidIdTokenError", "\(text)")
            // The SDK's custom token: the user whose id is its uid, the same user again.
            let custom = try #require(report["custom"], "\(text)")
            #expect(custom["isNewUser"] == true && custom["provider"] == "custom" && custom["sameUser"] == true, "\(text)")
            #expect(custom["plan"] == "pro", "the custom token's claims, as verify_id_token reads them: \(text)")
            // create_session_cookie and verify_session_cookie(check_revoked=True).
            let cookie = try #require(report["sessionCookie"], "\(text)")
            #expect(cookie["uid"] == cookie["localId"] && cookie["iss"] == "https://session.firebase.google.com/local", "\(text)")
            #expect(cookie["asIdToken"] == "InvalidIdTokenError" && cookie["revoked"] == "RevokedSessionCookieError", "\(text)")
            #expect(custom["uid"] == "custom-uid-1" && custom["localId"] == "custom-uid-1", "\(text)")
        }
    }
}
