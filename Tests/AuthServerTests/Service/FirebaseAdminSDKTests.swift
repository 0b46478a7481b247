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
        let output = Scratch.path("firebase-admin") + ".json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let sdk = try ChildProcess(
            [
                Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/firebase/" + script,
                "127.0.0.1:\(try #require(c.client.port))", "local", "any-api-key",
            ], output: output)
        try await sdk.waitForExit()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(sdk.exitStatus == 0, "\(text)")
        return try EJSON(parsing: Array((text.split(separator: "\n").last.map(String.init) ?? "").utf8))
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
            #expect(custom["uid"] == "custom-uid-1" && custom["localId"] == "custom-uid-1", "\(text)")
        }
    }
}
