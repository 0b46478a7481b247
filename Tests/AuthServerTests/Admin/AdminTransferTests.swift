// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import HTTPTypes
import NIOCore
import Synchronization
import Testing

/// Export and import through the admin API: a server's users moved to an empty one log in with
/// the same passwords and keep their ids, identities and data; a bad file changes nothing.
@Suite(.timeLimit(.minutes(5))) struct AdminTransferTests {
    static let auth = ("Authorization", "Bearer " + AdminHarness.key)

    /// The export's text.
    static func export(_ c: Client) async throws -> String {
        try await c.client.execute(uri: AdminHarness.base + "/export", method: .get, headers: [.authorization: auth.1], body: nil) { r in
            #expect(r.status == .ok && r.headers[.contentType] == "application/x-ndjson")
            return String(buffer: r.body)
        }
    }

    static func importing(_ c: Client, _ text: String, continueOnError: Bool = false) async throws -> Reply {
        try await c.call(
            .post, AdminHarness.base + "/import" + (continueOnError ? "?continueOnError=true" : ""),
            raw: Array(text.utf8), headers: [auth, ("Content-Type", "application/x-ndjson")])
    }

    /// Two servers (A and B), each on its own database, with admin keys.
    static func withTwoServers(_ body: @escaping @Sendable (Client, Client) async throws -> Void) async throws {
        let a = Scratch.path("transfer")
        let b = Scratch.path("transfer")
        defer {
            try? FileManager.default.removeItem(atPath: a)
            try? FileManager.default.removeItem(atPath: b)
        }
        try await TestServer.run(try AdminHarness.configuration(directory: a)) { ca in
            try await TestServer.run(try AdminHarness.configuration(directory: b)) { cb in try await body(ca, cb) }
        }
    }

    /// A user made elsewhere: a bcrypt hash of "correct horse" (BcryptTests).
    static let bcryptLine = #"""
        {"id":"5f0000000000000000000001","createdAt":1600000000,"data":{"email":"old@example.com"},"customData":{"from":"legacy"},"identities":[{"providerType":"local-userpass","externalId":"legacy-1","email":null,"data":{"email":"old@example.com"}}],"accounts":[{"email":"old@example.com","passwordHash":"$2b$04$YW0LQ.MIaLxGPN2Kg8/K8uSpH0AjYn9iBysgsh8POdlztMmGKHLV6","confirmed":true,"createdAt":1600000000,"identityId":"legacy-1"}]}
        """#

    @Test func exportThenImportIntoAnEmptyServer() async throws {
        try await Self.withTwoServers { a, b in
            try await a.registerConfirmed("ann@example.com", "Pass-word-1")
            let ann = try AdminHarness.userId(try await a.emailLogin("ann@example.com", "Pass-word-1"))
            try await AdminHarness.admin(a, .put, "/users/\(ann)/custom_data", json: ["plan": "pro", "seats": 3])
            try await a.registerConfirmed("bo@example.com", "Pass-word-2")
            let bo = try AdminHarness.userId(try await a.emailLogin("bo@example.com", "Pass-word-2"))
            try await AdminHarness.admin(a, .post, "/users/\(bo)/disable")
            let anon = try AdminHarness.userId(try await a.anonymous())
            // Registered and confirmed, never logged in: an account without a user.
            try await a.registerConfirmed("cy@example.com", "Pass-word-3")
            // Registered, not confirmed.
            #expect(try await a.userpass("register", ["email": "dee@example.com", "password": "Pass-word-4"]).status == 201)

            let exported = try await Self.export(a)
            let lines = exported.split(separator: "\n")
            #expect(lines.count == 3 + 2 + 1, "3 users, 2 accounts without a user, the end line: \(exported)")
            #expect(lines.last == #"{"end":{"users":3,"accounts":2}}"#)
            #expect(!exported.contains("Pass-word"), "hashes, never passwords")

            let first = try await Self.importing(b, exported)
            #expect(first.status == 200 && first.body["imported"]?.integerValue == 5 && first.body["skipped"]?.integerValue == 0, "\(first.body)")
            #expect(try await Self.export(b) == exported, "B holds what A held, to the byte")
            let again = try await Self.importing(b, exported)
            #expect(again.body["imported"]?.integerValue == 0 && again.body["skipped"]?.integerValue == 5)
            #expect(try await Self.export(b) == exported, "importing twice changes nothing")

            // Same passwords, same ids, same data, same state.
            #expect(try AdminHarness.userId(try await b.emailLogin("ann@example.com", "Pass-word-1")) == ann)
            #expect(try await AdminHarness.admin(b, .get, "/users/\(ann)").body["customData"]?["seats"]?.integerValue == 3)
            #expect(try await b.emailLogin("bo@example.com", "Pass-word-2").code == "UserDisabled")
            #expect(try await b.emailLogin("cy@example.com", "Pass-word-3").status == 200)
            #expect(try await b.emailLogin("dee@example.com", "Pass-word-4").status == 401, "still unconfirmed")
            #expect(try await AdminHarness.admin(b, .get, "/users/\(anon)").body["identities"]?.arrayValue?.first?["providerType"] == "anon-user")
        }
    }

    /// A user's TOTP factor, recovery codes and passkeys move with them: on the new server the
    /// password alone is not enough, the same authenticator app's code and the same passkey
    /// log in, and a recovery code from before works once.
    @Test func secondFactorsAndPasskeysMoveWithTheirUser() async throws {
        try await Self.withTwoServers { a, b in
            let (_, totp, recovery) = try await TOTPHarness.enrolled(a, "mfa@example.com")
            let now = try await TOTPHarness.now(a, advancing: 30)
            let done = try await TOTPHarness.complete(a, try await TOTPHarness.mfaToken(a, "mfa@example.com"), totp.code(at: now))
            let device = SoftwareAuthenticator(origin: PasskeyTests.origin)
            #expect(try await PasskeyTests.register(a, device, access: try #require(done["access_token"])).status == 201)
            let text = try await Self.export(a)
            #expect(text.contains(#""totp":{"#) && text.contains(#""passkeys":[{"#))
            #expect(!recovery.contains { text.contains($0) }, "only the codes' digests leave")

            // A passkey whose key is not a COSE key is refused, naming the field.
            let broken = text.replacingOccurrences(of: #""publicKey":""#, with: #""publicKey":"AAAA"#)
            let refused = try await Self.importing(b, broken)
            #expect(refused.status == 400 && "\(refused.body)".contains("passkeys[0].publicKey"), "\(refused.body)")

            let imported = try await Self.importing(b, text)
            #expect(imported.status == 200, "\(imported.body)")
            // Past the steps A spent (the last one used moved with the factor).
            let later = try await TOTPHarness.now(b, advancing: 60)
            #expect(try await TOTPHarness.complete(b, try await TOTPHarness.mfaToken(b, "mfa@example.com"), totp.code(at: later)).status == 200)
            let token = try await TOTPHarness.mfaToken(b, "mfa@example.com")
            #expect(try await TOTPHarness.complete(b, token, recovery[1]).status == 200)
            #expect(try await TOTPHarness.complete(b, try await TOTPHarness.mfaToken(b, "mfa@example.com"), recovery[1]).code == "InvalidMFACode")
            let login = try await PasskeyTests.login(b, try device.get(try await PasskeyTests.loginOptions(b)))
            #expect(login.status == 200 && login["user_id"] == done["user_id"], "\(login.body)")
            let again = try await Self.importing(b, text)
            #expect(again.status == 200 && again.body["imported"]?.integerValue == 0, "run twice, nothing changes: \(again.body)")
        }
    }

    /// A phone factor (enrolled through Firebase's API) moves too: on the new server the
    /// password alone is refused, and a number that is not E.164 is refused naming the field.
    @Test func aPhoneFactorMovesWithItsUser() async throws {
        try await Self.withTwoServers { a, b in
            let idToken = try await FirebasePhoneFactorTests.verifiedUser(a, "tel@example.com")
            _ = try await FirebasePhoneFactorTests.enrol(a, idToken, "+15550100051", name: "desk")
            let text = try await Self.export(a)
            #expect(text.contains(#""phones":[{"#) && text.contains("+15550100051"), "\(text)")
            let broken = text.replacingOccurrences(of: "+15550100051", with: "15550100051")
            let refused = try await Self.importing(b, broken)
            #expect(refused.status == 400 && "\(refused.body)".contains("phones[0].phoneNumber"), "\(refused.body)")

            #expect(try await Self.importing(b, text).status == 200)
            let first = try await b.emailLogin("tel@example.com", "password1")
            #expect(first.code == "MFARequired" && first.body["factors"] == ["phone"], "\(first.body)")
            #expect(first.body["phones"]?.arrayValue?.first?["phoneNumber"] == "+*******0051")
        }
    }

    @Test func aBcryptHashLogsInAndBecomesArgon2id() async throws {
        try await Self.withTwoServers { _, b in
            #expect(try await Self.importing(b, Self.bcryptLine + "\n").body["imported"]?.integerValue == 1)
            #expect(try await b.emailLogin("old@example.com", "wrong").status == 401)
            let login = try await b.emailLogin("old@example.com", "correct horse")
            #expect(try AdminHarness.userId(login) == "5f0000000000000000000001")
            let after = try await Self.export(b)
            #expect(after.contains(#""passwordHash":"$argon2id$"#) && !after.contains("$2b$"), "rehashed at the login")
            #expect(try await b.emailLogin("old@example.com", "correct horse").status == 200)
        }
    }

    /// Hashes of other systems (SHA-crypt, MD5-crypt, Argon2i, Django's PBKDF2) import, log
    /// in with their old password and are Argon2id after it.
    @Test(arguments: [0, 3, 4, 5, 8]) func aForeignHashLogsInAndBecomesArgon2id(_ index: Int) async throws {
        let vector = ForeignPasswordHashTests.vectors[index]
        let line = Self.bcryptLine.replacingOccurrences(
            of: "$2b$04$YW0LQ.MIaLxGPN2Kg8/K8uSpH0AjYn9iBysgsh8POdlztMmGKHLV6", with: vector.hash)
        try await Self.withTwoServers { _, b in
            let imported = try await Self.importing(b, line + "\n")
            #expect(imported.body["imported"]?.integerValue == 1, "\(imported.body)")
            #expect(try await b.emailLogin("old@example.com", vector.password + "x").status == 401)
            #expect(try await b.emailLogin("old@example.com", vector.password).status == 200)
            let after = try await Self.export(b)
            #expect(after.contains(#""passwordHash":"$argon2id$"#) && !after.contains(vector.hash), "rehashed at the login")
        }
    }

    @Test func oneBadLineChangesNothingUnlessAskedTo() async throws {
        try await Self.withTwoServers { a, b in
            for i in 1...3 { try await a.registerConfirmed("u\(i)@example.com", "Pass-word-\(i)") }
            for i in 1...3 { _ = try await a.emailLogin("u\(i)@example.com", "Pass-word-\(i)") }
            var lines = try await Self.export(a).split(separator: "\n").map(String.init)
            lines.removeLast()  // the end line: this file is edited
            lines.insert(#"{"id":"not\u0007an-id","identities":[]}"#, at: 1)
            let file = lines.joined(separator: "\n") + "\n"

            let refused = try await Self.importing(b, file)
            #expect(refused.status == 400 && refused.code == "InvalidParameter")
            #expect(refused.body["rejectedCount"]?.integerValue == 1)
            #expect(refused.body["rejected"]?.arrayValue?.first?["line"]?.integerValue == 2)
            #expect(refused.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue?.contains("'id'") == true)
            #expect(try await AdminHarness.admin(b, .get, "/users").body["users"]?.arrayValue?.isEmpty == true, "nothing imported")

            let partly = try await Self.importing(b, file, continueOnError: true)
            #expect(partly.status == 200 && partly.body["imported"]?.integerValue == 3 && partly.body["rejectedCount"]?.integerValue == 1)
            #expect(try await b.emailLogin("u2@example.com", "Pass-word-2").status == 200)
        }
    }

    @Test func linesThatClashAreNamed() async throws {
        try await Self.withTwoServers { a, b in
            try await a.registerConfirmed("same@example.com", "Pass-word-1")
            _ = try await a.emailLogin("same@example.com", "Pass-word-1")
            try await b.registerConfirmed("same@example.com", "Other-pass-1")
            _ = try await b.emailLogin("same@example.com", "Other-pass-1")
            let exported = try await Self.export(a)
            let clash = try await Self.importing(b, exported)
            #expect(clash.status == 400)
            #expect(clash.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue?.contains("same@example.com") == true, "\(clash.body)")
            #expect(try await b.emailLogin("same@example.com", "Other-pass-1").status == 200, "B's own user untouched")

            let twice = Self.bcryptLine + "\n" + Self.bcryptLine + "\n"
            let repeated = try await Self.importing(b, twice)
            #expect(repeated.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue?.contains("twice") == true)
            let cut = String(exported.dropLast(20))
            let truncated = try await Self.importing(b, cut, continueOnError: true)
            #expect(truncated.body["rejectedCount"]?.integerValue == 2, "the clash and the cut end line: \(truncated.body)")
        }
    }

    /// A login finds an account's user by the account's identity, so an import never hands out
    /// an identity that a user or another account holds, nor a verified email another user
    /// holds; hashes that would cost too much to verify are refused; a user without
    /// `createdAt` is made now.
    @Test func importNeverHandsOutAnotherUsersIdentity() async throws {
        try await Self.withTwoServers { _, b in
            try await b.registerConfirmed("victim@example.com", "Pass-word-1")
            let victim = try AdminHarness.userId(try await b.emailLogin("victim@example.com", "Pass-word-1"))
            let details = try await AdminHarness.admin(b, .get, "/users/\(victim)")
            let identity = try #require(details.body["identities"]?.arrayValue?.first?["externalId"]?.stringValue)
            // Registered and confirmed, never logged in: an account whose identity no user holds yet.
            try await b.registerConfirmed("waiting@example.com", "Pass-word-2")
            let waiting = try #require(
                try await Self.export(b).split(separator: "\n")
                    .compactMap { try? EJSON(parsing: Array($0.utf8)) }
                    .first { $0["account"]?["email"]?.stringValue == "waiting@example.com" }?["account"]?["identityId"]?.stringValue)
            let hash = "$2b$04$YW0LQ.MIaLxGPN2Kg8/K8uSpH0AjYn9iBysgsh8POdlztMmGKHLV6"  // "correct horse"
            func reason(_ line: String) async throws -> String {
                let r = try await Self.importing(b, line + "\n")
                #expect(r.status == 400, "\(r.body)")
                return r.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue ?? ""
            }
            // An account line naming the victim's identity: its login would open the victim's user.
            let takeover = try await reason(#"{"account":{"email":"evil@example.com","passwordHash":"\#(hash)","identityId":"\#(identity)"}}"#)
            #expect(takeover.contains("belongs to user \(victim)"), "\(takeover)")
            #expect(try await b.emailLogin("evil@example.com", "correct horse").status == 401)
            // A user line taking the waiting account's identity: its first login would land there.
            let userLine = #"{"id":"5f00000000000000000000aa","identities":[{"providerType":"local-userpass","externalId":"\#(waiting)"}]}"#
            #expect(try await reason(userLine).contains("is an account's already"))
            // Two account lines with one identity.
            let twice = try await Self.importing(
                b,
                #"{"account":{"email":"x1@example.com","passwordHash":"\#(hash)","identityId":"same"}}"# + "\n"
                    + #"{"account":{"email":"x2@example.com","passwordHash":"\#(hash)","identityId":"same"}}"# + "\n")
            #expect(twice.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue?.contains("in the file twice") == true, "\(twice.body)")
            // A verified email another user holds.
            let google =
                #"{"id":"5f00000000000000000000ab","identities":[{"providerType":"oauth2-google","externalId":"g-1","email":"victim@example.com"}]}"#
            #expect(try await reason(google).contains("another user's already"))
            let two = try await Self.importing(
                b,
                #"{"id":"5f00000000000000000000ad","identities":[{"providerType":"oauth2-google","externalId":"g-2","email":"pat@example.com"}]}"#
                    + "\n"
                    + #"{"id":"5f00000000000000000000ae","identities":[{"providerType":"oauth2-apple","externalId":"a-2","email":"pat@example.com"}]}"#
                    + "\n")
            #expect(two.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue?.contains("verified for two users") == true, "\(two.body)")
            // Hashes that would make every login for the email take gigabytes or hours.
            for expensive in [
                "$argon2id$v=19$m=8388608,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "$2b$31$YW0LQ.MIaLxGPN2Kg8/K8uSpH0AjYn9iBysgsh8POdlztMmGKHLV6",
            ] {
                #expect(
                    try await reason(#"{"account":{"email":"slow@example.com","passwordHash":"\#(expensive)","identityId":"slow-1"}}"#).contains(
                        "costs too much"))
            }
            #expect(try await b.emailLogin("victim@example.com", "Pass-word-1").status == 200, "the victim is untouched")

            // Without createdAt: made now, not in 1970.
            let fresh = try await Self.importing(
                b, #"{"id":"5f00000000000000000000ac","identities":[{"providerType":"anon-user","externalId":"anon-1"}]}"# + "\n")
            #expect(fresh.status == 200, "\(fresh.body)")
            let created = try await AdminHarness.admin(b, .get, "/users/5f00000000000000000000ac")
            #expect((created.body["createdAt"]?.integerValue ?? 0) > 1_700_000_000, "\(created.body)")
        }
    }

    /// Another system's id (`auth0|...`, or one with a path's own characters) is kept, and the
    /// admin API and page reach its user through the id percent-escaped in the path.
    @Test func anotherSystemsIdIsKeptAndReachable() async throws {
        try await Self.withTwoServers { a, _ in
            let id = "auth0|a/b?c #%1"
            let line = Self.bcryptLine.replacingOccurrences(of: "5f0000000000000000000001", with: #"auth0|a/b?c #%1"#)
            let imported = try await Self.importing(a, line)
            #expect(imported.status == 200 && imported.body["imported"]?.integerValue == 1, "\(imported.body)")
            let escaped = "auth0%7Ca%2Fb%3Fc%20%23%251"
            let shown = try await AdminHarness.admin(a, .get, "/users/" + escaped)
            #expect(shown.status == 200 && shown.body["id"]?.stringValue == id, "\(shown.body)")
            #expect(try await AdminHarness.admin(a, .post, "/users/" + escaped + "/disable").status == 200)
            #expect(try await AdminHarness.admin(a, .get, "/users/" + escaped).body["disabled"] == true)
            let control = Self.bcryptLine.replacingOccurrences(of: "5f0000000000000000000001", with: #"bad\u0001id"#)
            let refused = try await Self.importing(a, control)
            #expect(refused.status == 400 && "\(refused.body)".contains("without control characters"), "\(refused.body)")
        }
    }

    @Test func withoutAKeyThereIsNoExport() async throws {
        try await Self.withTwoServers { a, _ in
            let r = try await a.call(.get, AdminHarness.base + "/export")
            #expect(r.status == 401)
            let i = try await a.call(.post, AdminHarness.base + "/import", raw: Array(Self.bcryptLine.utf8))
            #expect(i.status == 401)
        }
    }
}
