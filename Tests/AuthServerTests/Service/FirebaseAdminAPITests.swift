// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// The Firebase Admin API through HTTP: who may call it (an authsh admin key; the emulator's
/// `Bearer owner` in dev mode only), custom claims as Firebase checks them, and an import that
/// refuses what it cannot verify, user by user, and rehashes what it can at the first login.
@Suite(.timeLimit(.minutes(3))) struct FirebaseAdminAPITests {
    static func path(_ project: String = "local", _ method: String) -> String {
        "/identitytoolkit.googleapis.com/v1/projects/\(project)/\(method)"
    }

    static func call(
        _ c: Client, _ method: String, project: String = "local", bearer: String? = "owner", _ body: EJSON,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        try await c.call(
            .post, path(project, method), json: body, headers: [("Authorization", bearer.map { "Bearer " + $0 })],
            sourceLocation: sourceLocation)
    }

    @Test func theEmulatorsOwnerIsAnAdminInDevModeOnly() async throws {
        try await TestServer.run { c in
            let made = try await Self.call(c, "accounts", ["localId": "dev-made", "email": "dev@example.com", "password": "password1"])
            #expect(made.status == 200 && made["localId"] == "dev-made" && made["kind"] == "identitytoolkit#SignupNewUserResponse", "\(made.body)")
            let none = try await Self.call(c, "accounts:lookup", bearer: nil, ["localId": ["dev-made"]])
            FirebaseAPITests.expectError(none, 401, FirebaseAdminAuthMiddleware.missingCredential)
            #expect(none.body["error"]?["status"] == "UNAUTHENTICATED")
            FirebaseAPITests.expectError(
                try await Self.call(c, "accounts:lookup", bearer: "guess", ["localId": ["dev-made"]]), 401,
                "Request had invalid authentication credentials.")
            // A user's ID token is no admin credential.
            let up = try await FirebaseAPITests.call(c, "signUp", [:])
            let asUser = try await Self.call(c, "accounts:lookup", bearer: up["idToken"], ["localId": ["dev-made"]])
            #expect(asUser.status == 401, "\(asUser.body)")
            FirebaseAPITests.expectError(try await Self.call(c, "accounts:lookup", project: "no-such-project", [:]), 404, "PROJECT_NOT_FOUND")
            // Ids are printed in logs and terminals: no control characters.
            FirebaseAPITests.expectError(try await Self.call(c, "accounts", ["localId": "bad\u{1B}[31mid"]), 400, "INVALID_LOCAL_ID")
            let imported = try await Self.call(c, "accounts:batchCreate", ["users": [["localId": "tab\there"], ["localId": "fine-id"]]])
            #expect(imported.body["error"]?.arrayValue?.compactMap { $0["index"]?.integerValue } == [0], "\(imported.body)")
            let unsigned = FirebaseIDTokens.unsigned([
                "aud": .string(FirebaseAccounts.customTokenAudience), "uid": "line\nbreak", "iat": 1, "exp": 9_999_999_999,
            ])
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithCustomToken", ["token": .string(unsigned)]), 400, "INVALID_CUSTOM_TOKEN")
            FirebaseAPITests.expectError(try await Self.call(c, "accounts:signInWithGameCenter", [:]), 404, "Method not found.")
        }
        // Production with admin keys: the key, never `owner`; an unknown caller learns nothing
        // of which projects exist.
        var config = FirebaseAPITests.production()
        config.adminKeys = try AdminKeys([(name: "ops", key: AdminHarness.key)])
        try await TestServer.run(config) { c in
            let owner = try await Self.call(c, "accounts", project: "project-one", ["localId": "prod-made"])
            FirebaseAPITests.expectError(owner, 401, "Request had invalid authentication credentials.")
            let unknown = try await Self.call(c, "accounts", project: "no-such-project", ["localId": "prod-made"])
            #expect(unknown.status == 401)
            let made = try await Self.call(c, "accounts", project: "project-one", bearer: AdminHarness.key, ["localId": "prod-made"])
            #expect(made.status == 200 && made["localId"] == "prod-made", "\(made.body)")
            let found = try await Self.call(c, "accounts:lookup", project: "project-one", bearer: AdminHarness.key, ["localId": ["prod-made"]])
            #expect(found.body["users"]?.arrayValue?.first?["localId"] == "prod-made", "\(found.body)")
            // Another project's app has no such user.
            let elsewhere = try await Self.call(c, "accounts:lookup", project: "project-two", bearer: AdminHarness.key, ["localId": ["prod-made"]])
            #expect(elsewhere.status == 200 && elsewhere.body["users"] == nil, "\(elsewhere.body)")

            // Session cookies: signed outside dev mode, never as an ID token; an admin's call.
            let up = try await FirebaseAPITests.call(c, "signUp", key: "key-of-project-one", [:])
            func cookie(_ body: EJSON, bearer: String? = AdminHarness.key, project: String = "project-one") async throws -> Reply {
                try await c.call(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/\(project):createSessionCookie", json: body,
                    headers: [("Authorization", bearer.map { "Bearer " + $0 })])
            }
            let baked = try await cookie(["idToken": up.body["idToken"]!, "validDuration": "3600"])
            #expect(baked.status == 200, "\(baked.body)")
            let (header, claims) = try FirebaseAPITests.parts(baked["sessionCookie"])
            #expect(header["alg"] != nil && header["alg"]?.stringValue != "none", "\(header)")
            #expect(claims["iss"] == "https://session.firebase.google.com/project-one" && claims["sub"] == up.body["localId"], "\(claims)")
            let exp = try #require(claims["exp"]?.integerValue), iat = try #require(claims["iat"]?.integerValue)
            #expect(exp - iat == 3600)
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "lookup", key: "key-of-project-one", ["idToken": baked.body["sessionCookie"]!]), 400,
                "INVALID_ID_TOKEN")
            #expect(try await cookie(["idToken": up.body["idToken"]!], bearer: "owner").status == 401)
            FirebaseAPITests.expectError(try await cookie(["idToken": up.body["idToken"]!, "validDuration": 60]), 400, "INVALID_DURATION")
            FirebaseAPITests.expectError(try await cookie(["idToken": "not-a-token"]), 400, "INVALID_ID_TOKEN")
            FirebaseAPITests.expectError(try await cookie(["idToken": up.body["idToken"]!], project: "project-two"), 400, "INVALID_ID_TOKEN")
            let other = try await c.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/project-one:deleteAllThings", json: [:],
                headers: [("Authorization", "Bearer " + AdminHarness.key)])
            #expect(other.status == 404)
        }
        // Production without admin keys: there is no Admin API.
        try await TestServer.run(FirebaseAPITests.production()) { c in
            let absent = try await Self.call(c, "accounts", project: "project-one", ["localId": "x"])
            #expect(absent.status == 404)
        }
    }

    /// Custom claims: a JSON object of at most 1000 bytes naming no reserved claim; they are the
    /// user's custom data, in its Firebase ID tokens and its App Services access tokens alike.
    @Test func customClaimsAreCheckedAndReachBothAPIsTokens() async throws {
        try await TestServer.run { c in
            let up = try await FirebaseAPITests.call(c, "signUp", ["email": "claims@example.com", "password": "password1"])
            let uid = try #require(up["localId"])
            for (claims, error) in [
                (#"{"sub": "someone-else"}"#, "FORBIDDEN_CLAIM"), (#"["admin"]"#, "INVALID_CLAIMS"), ("{not json", "INVALID_CLAIMS"),
                (#"{"big": ""# + String(repeating: "x", count: 1000) + #""}"#, "CLAIMS_TOO_LARGE"),
            ] {
                let refused = try await Self.call(c, "accounts:update", ["localId": .string(uid), "customAttributes": .string(claims)])
                FirebaseAPITests.expectError(refused, 400, error)
            }
            let set = try await Self.call(c, "accounts:update", ["localId": .string(uid), "customAttributes": #"{"role": "editor"}"#])
            #expect(set.status == 200 && set["customAttributes"] == #"{"role":"editor"}"#, "\(set.body)")
            let inside = try await FirebaseAPITests.call(c, "signInWithPassword", ["email": "claims@example.com", "password": "password1"])
            #expect(try FirebaseAPITests.parts(inside["idToken"]).claims["role"] == "editor")
            let realm = try await c.emailLogin("claims@example.com", "password1")
            #expect(try TOTPHarness.claims(realm["access_token"])["user_data"]?["role"] == "editor")
            // A user's own update may not set them, nor disable or revoke.
            let own = try await FirebaseAPITests.call(c, "update", ["idToken": inside.body["idToken"]!, "customAttributes": #"{"role": "admin"}"#])
            FirebaseAPITests.expectError(own, 400, "INSUFFICIENT_PERMISSION")
            let disable = try await FirebaseAPITests.call(c, "update", ["idToken": inside.body["idToken"]!, "disableUser": true])
            FirebaseAPITests.expectError(disable, 400, "OPERATION_NOT_ALLOWED")
            // `{}` removes them.
            #expect(try await Self.call(c, "accounts:update", ["localId": .string(uid), "customAttributes": "{}"]).status == 200)
            let cleared = try await Self.call(c, "accounts:lookup", ["localId": [.string(uid)]])
            #expect(cleared.body["users"]?.arrayValue?.first?["customAttributes"] == nil, "\(cleared.body)")
        }
    }

    /// `batchCreate` takes each user alone: one it cannot verify (an unknown algorithm for the
    /// whole request; a cost over the limits, a missing id, a phone number) is refused with the
    /// reason and the others come in; an imported hash logs in once, and is Argon2id after.
    @Test func batchCreateRefusesWhatItCannotVerify() async throws {
        try await AdminHarness.withServer { c, _ in
            let hmacMD5 = try await Self.call(c, "accounts:batchCreate", ["hashAlgorithm": "HMAC_MD5", "users": [["localId": "a"]]])
            FirebaseAPITests.expectError(hmacMD5, 400, "INVALID_HASH_ALGORITHM")

            // Firebase's salted SHA256 (salt first, one round: firebase-admin-node's own
            // fixture) comes in and logs in; two rounds are refused, user by user, with why.
            let nacl = Base64.encode(Array("NaCl".utf8))
            let salted = try await Self.call(
                c, "accounts:batchCreate",
                [
                    "hashAlgorithm": "SHA256", "rounds": 1,
                    "users": [
                        [
                            "localId": "sha-1", "email": "sha@example.com", "passwordHash": "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM=",
                            "salt": .string(nacl),
                        ]
                    ],
                ])
            #expect(salted.status == 200 && salted.body["error"]?.arrayValue?.isEmpty == true, "\(salted.body)")
            let signedIn = try await FirebaseAPITests.call(
                c, "signInWithPassword", ["email": "sha@example.com", "password": "password", "returnSecureToken": true])
            #expect(signedIn.status == 200 && signedIn["localId"] == "sha-1", "\(signedIn.body)")
            let twice = try await Self.call(
                c, "accounts:batchCreate",
                [
                    "hashAlgorithm": "SHA256", "rounds": 2,
                    "users": [
                        [
                            "localId": "sha-2", "email": "sha2@example.com", "passwordHash": "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM=",
                            "salt": .string(nacl),
                        ]
                    ],
                ])
            #expect(twice.body["error"]?.arrayValue?.first?["message"]?.stringValue?.contains("does not document") == true, "\(twice.body)")
            let tooMany = try await Self.call(
                c, "accounts:batchCreate", ["users": .array((0...1000).map { ["localId": .string("u\($0)")] })])
            FirebaseAPITests.expectError(tooMany, 400, "INVALID_ARGUMENT")

            let scrypt = ImportedPasswordHashTests.firebase
            guard case .firebaseScrypt(let key, let separator, let salt, _, _, let hash) = scrypt else { return }
            let user: (String, String) -> EJSON = { id, email in
                ["localId": .string(id), "email": .string(email), "passwordHash": .string(Base64.encode(hash)), "salt": .string(Base64.encode(salt))]
            }
            let costly = try await Self.call(
                c, "accounts:batchCreate",
                [
                    "hashAlgorithm": "SCRYPT", "signerKey": .string(Base64.encode(key)), "saltSeparator": .string(Base64.encode(separator)),
                    "rounds": 8, "memoryCost": 19, "users": [user("costly", "costly@example.com")],
                ])
            #expect(
                costly.status == 200 && costly.body["error"]?.arrayValue?.first?["message"]?.stringValue?.contains("256 MiB") == true,
                "\(costly.body)")

            let mixed = try await Self.call(
                c, "accounts:batchCreate",
                [
                    "hashAlgorithm": "SCRYPT", "signerKey": .string(Base64.encode(key)), "saltSeparator": .string(Base64.encode(separator)),
                    "rounds": 8, "memoryCost": 14,
                    "users": [
                        user("", "noid@example.com"), user("scrypt-1", "user1@test.com"), ["localId": "bad-phone", "phoneNumber": "555-0100"],
                        ["localId": "plain-1", "displayName": "Plain"], ["localId": "phone-1", "phoneNumber": "+15555550100"],
                    ],
                ])
            #expect(mixed.status == 200, "\(mixed.body)")
            #expect(mixed.body["error"]?.arrayValue?.compactMap { $0["index"]?.integerValue } == [0, 2], "\(mixed.body)")
            let found = try await Self.call(c, "accounts:lookup", ["localId": ["scrypt-1", "plain-1", "phone-1", "costly"]])
            #expect(
                found.body["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["scrypt-1", "plain-1", "phone-1"], "\(found.body)")
            let byPhone = try await Self.call(c, "accounts:lookup", ["phoneNumber": ["+15555550100"]])
            #expect(byPhone.body["users"]?.arrayValue?.first?["phoneNumber"] == "+15555550100", "\(byPhone.body)")

            let before = try await AdminTransferTests.export(c)
            #expect(before.contains("$firebase-scrypt$r=8,m=14$"))
            let inside = try await FirebaseAPITests.call(c, "signInWithPassword", ["email": "user1@test.com", "password": "user1password"])
            #expect(inside.status == 200 && inside["localId"] == "scrypt-1", "\(inside.body)")
            let after = try await AdminTransferTests.export(c)
            #expect(!after.contains("$firebase-scrypt$") && after.contains(#""passwordHash":"$argon2id$"#), "rehashed at the login")
            #expect(try await c.emailLogin("user1@test.com", "user1password").status == 200)

            // A provider identity another user holds: that user alone is refused.
            let github: (String) -> EJSON = { id in ["localId": .string(id), "providerUserInfo": [["providerId": "github.com", "rawId": "gh-1"]]] }
            let first = try await Self.call(c, "accounts:batchCreate", ["users": [github("gh-a")]])
            #expect(first.body["error"]?.arrayValue?.isEmpty == true, "\(first.body)")
            let taken = try await Self.call(c, "accounts:batchCreate", ["users": [github("gh-b"), ["localId": "after-gh"]]])
            #expect(taken.body["error"]?.arrayValue?.map { $0["message"] } == ["raw id exists in other account in database"], "\(taken.body)")
            let byProvider = try await Self.call(c, "accounts:lookup", ["federatedUserId": [["providerId": "github.com", "rawId": "gh-1"]]])
            #expect(byProvider.body["users"]?.arrayValue?.first?["localId"] == "gh-a", "\(byProvider.body)")
        }
    }

    /// `batchGet` pages through every user by id; `query` counts them and pages with `offset`.
    @Test func usersArePagedAndCounted() async throws {
        try await TestServer.run { c in
            let users: [EJSON] = (1...5).map { ["localId": .string("user-\($0)")] }
            #expect(try await Self.call(c, "accounts:batchCreate", ["users": .array(users)]).status == 200)
            var seen: [String] = []
            var token: String?
            repeat {
                let page = try await c.call(
                    .get, Self.path("local", "accounts:batchGet") + "?maxResults=2" + (token.map { "&nextPageToken=\($0)" } ?? ""),
                    headers: [("Authorization", "Bearer owner")])
                #expect(page.status == 200, "\(page.body)")
                seen += page.body["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } ?? []
                token = page["nextPageToken"]
            } while token != nil
            #expect(seen == (1...5).map { "user-\($0)" })
            let count = try await Self.call(c, "accounts:query", ["returnUserInfo": false])
            #expect(count["recordsCount"] == "5", "\(count.body)")
            let offset = try await Self.call(c, "accounts:query", ["offset": "3", "limit": 10])
            #expect(offset.body["userInfo"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["user-4", "user-5"], "\(offset.body)")
            let refused = try await Self.call(c, "accounts:batchDelete", ["localIds": ["user-1"]])
            #expect(refused.body["errors"]?.arrayValue?.first?["message"]?.stringValue?.hasPrefix("NOT_DISABLED") == true, "\(refused.body)")
            #expect(try await Self.call(c, "accounts:batchDelete", ["localIds": ["user-1", "user-2"], "force": true]).status == 200)
            #expect(try await Self.call(c, "accounts:query", ["returnUserInfo": false])["recordsCount"] == "3")
        }
    }

    /// `query` with an expression: the first one alone, each field it gives matching.
    @Test func queryExpressionsFindUsersByIdEmailAndPhone() async throws {
        try await TestServer.run { c in
            let users: [EJSON] = [
                ["localId": "q-1", "email": "q1@example.com", "phoneNumber": "+15550100061"],
                ["localId": "q-2", "email": "q2@example.com"],
            ]
            #expect(try await Self.call(c, "accounts:batchCreate", ["users": .array(users)]).status == 200)
            func ids(_ expression: EJSON) async throws -> [String]? {
                let found = try await Self.call(c, "accounts:query", ["expression": expression])
                #expect(found.status == 200, "\(found.body)")
                return found.body["userInfo"]?.arrayValue?.compactMap { $0["localId"]?.stringValue }
            }
            #expect(try await ids([["email": "q1@example.com"]]) == ["q-1"])
            #expect(try await ids([["phoneNumber": "+15550100061"]]) == ["q-1"])
            #expect(try await ids([["userId": "q-2"]]) == ["q-2"])
            #expect(try await ids([["userId": "q-2", "email": "q1@example.com"]]) == [], "every field must match")
            #expect(try await ids([["email": "q2@example.com"], ["email": "q1@example.com"]]) == ["q-2"], "the first expression alone")
            #expect(try await ids([["email": "nobody@example.com"]]) == [])
            let refused = try await Self.call(c, "accounts:query", ["expression": [["displayName": "x"]]])
            #expect(refused.status == 400 && "\(refused.body)".contains("userId, email and phoneNumber"), "\(refused.body)")
        }
    }
}
