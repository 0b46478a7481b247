// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `authsh admin import --from keycloak|supabase|auth0|cognito`: the exports of
/// `Tests/fixtures/moving-in` (each written from its system's documented format, with hashes
/// Python's libraries made; the README there lists the passwords), checked, imported, imported
/// again (nothing changes); then every user with a password logs in with it and holds an
/// Argon2id hash after, and the users' identities and states came along.
@Suite(.binary, .timeLimit(.minutes(5))) struct ForeignImportCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/moving-in").path

    /// Each format's file, extra arguments, users, and the logins that must work.
    static let formats: [(format: String, file: String, extra: [String], users: Int, logins: [(String, String)])] = [
        (
            "keycloak", "keycloak-realm.json", [], 5,
            [
                ("alice@example.com", "correct horse battery staple"), ("bob@example.com", "Tr0ub4dor&3"),
                ("carol@example.com", "Grüße-aus-Köln-2024"),
            ]
        ),
        ("supabase", "supabase-users.ndjson", [], 5, [("frank@example.com", "frank-supabase-pw"), ("heidi@example.com", "heidi-has-google-too")]),
        (
            "auth0", "auth0-users.ndjson", ["--passwords", fixtures + "/auth0-passwords.ndjson"], 5,
            [("kim@example.com", "kim-auth0-secret"), ("nina@example.com", "nina-cost-ten")]
        ),
        ("cognito", "cognito-users.json", [], 4, []),
    ]

    static func configure(_ directory: String) throws -> String {
        let config = directory + "/config.json"
        try Binary.write(
            #"{"apps": [{"id": "local", "rateLimits": {"enabled": false}, "providers": {"local-userpass": {"autoConfirm": true}}}]}"#,
            to: config)
        return config
    }

    @Test func everyFormatMovesInWithItsPasswords() async throws {
        let directory = try Binary.temporaryDirectory()
        let config = try Self.configure(directory)
        let data = directory + "/data"
        for f in Self.formats {
            let base = ["admin", "--config", config, "--data", data, "import", "--from", f.format, Self.fixtures + "/" + f.file] + f.extra
            let checked = try await Binary.run(base + ["--check"])
            #expect(
                checked.status == 0 && checked.stdout.hasPrefix("would import \(f.users), skipped 0"),
                "\(f.format): \(checked.stdout)\(checked.stderr)")
            let imported = try await Binary.run(base)
            #expect(
                imported.stdout.hasPrefix("imported \(f.users), skipped 0 (there already), rejected 0"),
                "\(f.format): \(imported.stdout)\(imported.stderr)")
            let again = try await Binary.run(base)
            #expect(again.stdout.hasPrefix("imported 0, skipped \(f.users) (there already)"), "\(f.format): \(again.stdout)\(again.stderr)")
        }
        func show(_ id: String) async throws -> String {
            try await Binary.run(["admin", "--config", config, "--data", data, "--json", "users", "show", id]).stdout
        }
        // The ids are the old system's; the identities and states came along.
        let dave = try await show("742c9159-9a22-43ad-8ea1-98d9a3d02de7")
        #expect(dave.contains(#""providerType":"oauth2-github""#) && dave.contains(#""externalId":"583231""#), "\(dave)")
        let leo = try await show("github|583232")
        #expect(leo.contains(#""externalId":"583232""#), "Auth0 writes GitHub's id as a number: \(leo)")
        let quinn = try await show("a4c8e1f2-3071-70d5-9b6a-0e1f2a3b4c5d")
        #expect(quinn.contains(#""providerType":"oauth2-google""#) && quinn.contains(#""externalId":"1234567890""#), "\(quinn)")

        let (server, origin) = try await ServerProcess.spawn(["--config", config, "--data", data], log: directory + "/serve.log")
        defer { server.stop() }
        let http = JSONHTTP(origin: origin)
        let login = "/api/client/v2.0/app/local/auth/providers/local-userpass/login"
        func logIn(_ email: String, _ password: String) async throws -> JSONHTTP.Reply {
            try await http.send(.POST, login, json: #"{"username":\#(JSONHTTP.quoted(email)),"password":\#(JSONHTTP.quoted(password))}"#)
        }
        for f in Self.formats {
            for (email, password) in f.logins {
                let reply = try await logIn(email, password)
                #expect(reply.status == 200, "\(f.format) \(email): \(reply.text)")
                #expect(try await logIn(email, password + "x").status == 401, "\(f.format) \(email): a wrong password")
            }
        }
        // Disabled there, disabled here; a ban not over yet disables; an unconfirmed email stays so.
        #expect(try await logIn("erin@example.com", "erin-was-disabled-1")["error_code"] == "UserDisabled")
        #expect(try await logIn("judy@example.com", "judy-is-banned-99")["error_code"] == "UserDisabled")
        #expect(try await logIn("oscar@example.com", "oscar-blocked-pw")["error_code"] == "UserDisabled")
        #expect(try await logIn("ivan@example.com", "ivan-never-confirmed").text.contains("confirmation required"))
        server.stop()

        let export = directory + "/after.ndjson"
        #expect(try await Binary.run(["admin", "--config", config, "--data", data, "export", export]).status == 0)
        let after = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
        for f in Self.formats {
            for (email, _) in f.logins {
                let line = after.first { $0.contains(#""email":"\#(email)","passwordHash""#) } ?? ""
                // Keycloak's Argon2id hash (m=7168,t=5) becomes one of the server's parameters too.
                #expect(
                    line.contains(#""passwordHash":"$argon2id$"#) && !line.contains("m=7168,t=5"),
                    "\(email) rehashed at its login: \(line.prefix(300))")
            }
        }
        // Cognito's users have no password until they set one through the reset flow.
        #expect(after.contains { $0.contains(#""email":"pat@example.com","passwordHash":"!""#) })
    }

    /// A user that cannot come in is named by its position and reason, and stops the import
    /// unless --continue-on-error; users left out on purpose are named, not refused.
    @Test func aRefusedUserIsNamedAndStopsTheImport() async throws {
        let directory = try Binary.temporaryDirectory()
        let config = try Self.configure(directory)
        let data = directory + "/data"
        let realm = directory + "/realm.json"
        try Binary.write(
            #"""
            {"realm": "demo", "roles": {"realm": [{"name": "users"}]}, "users": [
              {"id": "u1", "email": "one@example.com", "credentials": [{"type": "password",
                "secretData": "{\"value\":\"AAAA\",\"salt\":\"AAAA\"}", "credentialData": "{\"algorithm\":\"md4-special\",\"hashIterations\":1}"}]},
              {"id": "u2", "email": "two@example.com", "realmRoles": ["default-roles-demo", "admin"]},
              {"id": "u3", "username": "nomail"}
            ], "clients": []}
            """#, to: realm)
        let base = ["admin", "--config", config, "--data", data, "import", "--from", "keycloak", realm]
        let refused = try await Binary.run(base)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.hasPrefix("imported 0, skipped 0 (there already), rejected 2, left out 0 (nothing written"), "\(refused.stdout)")
        #expect(refused.stdout.contains("user 0: password algorithm 'md4-special' is not read"), "\(refused.stdout)")
        #expect(refused.stdout.contains("user 2: no email and no federated identity"), "\(refused.stdout)")
        #expect(try await Binary.run(["admin", "--config", config, "--data", data, "users", "show", "u2"]).status != 0, "nothing written")

        let partial = try await Binary.run(base + ["--continue-on-error"])
        #expect(partial.stdout.hasPrefix("imported 1, skipped 0 (there already), rejected 2"), "\(partial.stdout)\(partial.stderr)")
        let two = try await Binary.run(["admin", "--config", config, "--data", data, "--json", "users", "show", "u2"]).stdout
        #expect(two.contains(#""customData":{"roles":["admin"]}"#), "roles as custom data, less Keycloak's default: \(two)")

        // Supabase: deleted and anonymous users are left out, and say so.
        let rows = directory + "/supabase.ndjson"
        try Binary.write(
            """
            {"id": "s1", "email": "gone@example.com", "encrypted_password": "", "deleted_at": "2024-05-01T00:00:00+00:00", "identities": []}
            {"id": "s2", "is_anonymous": true, "identities": []}

            """, to: rows)
        let supabase = try await Binary.run(["admin", "--config", config, "--data", data, "import", "--from", "supabase", rows])
        #expect(
            supabase.status == 0 && supabase.stdout.hasPrefix("imported 0, skipped 0 (there already), rejected 0, left out 2"), "\(supabase.stdout)")
        #expect(supabase.stdout.contains("user 1 left out: an anonymous user"), "\(supabase.stdout)")

        let usage = try await Binary.run(["admin", "--data", data, "import", "--from", "keycloak", "--passwords", "p", realm])
        #expect(usage.status == 64 && usage.stderr.contains("--passwords goes with --from auth0"), "\(usage.stderr)")
    }

    /// A file that opens but cannot be read (a directory here; a failing disk elsewhere) is
    /// refused, in every format, rather than read as an empty export that imports nobody.
    @Test func aFileThatCannotBeReadIsRefusedNotTakenAsEmpty() async throws {
        let directory = try Binary.temporaryDirectory()
        let config = try Self.configure(directory)
        for format in ["keycloak", "supabase", "auth0", "cognito", "firebase"] {
            let run = try await Binary.run(["admin", "--config", config, "--data", directory + "/data", "import", "--from", format, directory])
            #expect(run.status != 0 && run.stderr.contains("cannot read \(directory): Is a directory"), "\(format): \(run.stdout)\(run.stderr)")
            #expect(!run.stdout.contains("imported"), "\(format): \(run.stdout)")
        }
    }
}
