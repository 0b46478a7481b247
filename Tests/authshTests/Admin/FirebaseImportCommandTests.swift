// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `authsh admin import --from firebase`: a `firebase auth:export` file (its JSON as
/// firebase-tools writes it, each user indented) and the console's `hash_config` block, checked
/// with `--check`, imported, imported again (nothing changes), then the scrypt user logs in with
/// the password of firebase/scrypt's README and holds an Argon2id hash after.
@Suite(.binary, .timeLimit(.minutes(5))) struct FirebaseImportCommandTests {
    /// firebase/scrypt's README: the sample project's hash parameters, as the console shows them.
    static let hashConfig = """
        hash_config {
          algorithm: SCRYPT,
          base64_signer_key: jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==,
          base64_salt_separator: Bw==,
          rounds: 8,
          mem_cost: 14,
        }
        """

    /// Five users as `firebase auth:export` writes them: the README's user (its hash and salt),
    /// a Google user, one whose name holds JSON's own characters, one whose hash is not base64,
    /// and one with the first one's email.
    static let export = #"""
        {"users": [
        {
          "localId": "user1",
          "email": "user1@example.com",
          "emailVerified": true,
          "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
          "salt": "42xEC+ixf3L2lw==",
          "displayName": "User One",
          "createdAt": "1700000000000",
          "providerUserInfo": [
            {
              "providerId": "password",
              "rawId": "user1@example.com",
              "email": "user1@example.com"
            }
          ]
        },
        {
          "localId": "google-user",
          "email": "g@example.com",
          "emailVerified": true,
          "providerUserInfo": [
            {
              "providerId": "google.com",
              "rawId": "112233445566",
              "email": "g@example.com",
              "displayName": "Gee"
            }
          ]
        },
        {
          "localId": "braces",
          "displayName": "Ada \"}{][\\\" Lovelace",
          "providerUserInfo": []
        },
        {
          "localId": "bad-hash",
          "email": "bad@example.com",
          "passwordHash": "%%% not base64 %%%",
          "salt": "42xEC+ixf3L2lw==",
          "providerUserInfo": []
        },
        {
          "localId": "user1-again",
          "email": "user1@example.com",
          "providerUserInfo": []
        }
        ]}
        """#

    @Test func aFirebaseExportMovesInWithItsPasswords() async throws {
        let directory = try Binary.temporaryDirectory()
        let config = directory + "/config.json"
        try Data(
            #"""
            {"adminKeys": [{"name": "ops", "key": {"env": "TEST_ADMIN_KEY"}}],
             "apps": [{"id": "local", "rateLimits": {"enabled": false}, "providers": {"local-userpass": {"autoConfirm": true}}}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: config))
        setenv("TEST_ADMIN_KEY", AdminCommandTests.key, 1)
        try Data(Self.export.utf8).write(to: URL(fileURLWithPath: directory + "/users.json"))
        try Data(Self.hashConfig.utf8).write(to: URL(fileURLWithPath: directory + "/hash.txt"))
        let data = directory + "/data"
        let base = ["admin", "--config", config, "--data", data, "import", "--from", "firebase", directory + "/users.json"]

        let checked = try await Binary.run(base + ["--hash-config", directory + "/hash.txt", "--check"])
        #expect(checked.status == 1, "a rejected user fails the command")
        #expect(checked.stdout.hasPrefix("would import 3, skipped 0 (there already), rejected 2\n  user 3: "), "\(checked.stdout)")
        #expect(checked.stdout.contains("user 4: email exists in other account"), "\(checked.stdout)")
        #expect(checked.stdout.contains("passwordHash"), "the reason names the field: \(checked.stdout)")

        let imported = try await Binary.run(base + ["--hash-config", directory + "/hash.txt"])
        #expect(imported.stdout.hasPrefix("imported 3, skipped 0 (there already), rejected 2"), "\(imported.stdout)\(imported.stderr)")
        let again = try await Binary.run(base + ["--hash-config", directory + "/hash.txt"])
        #expect(again.stdout.hasPrefix("imported 0, skipped 3 (there already), rejected 2"), "\(again.stdout)")
        let shown = try await Binary.run(["admin", "--config", config, "--data", data, "--json", "users", "show", "braces"])
        #expect(shown.status == 0 && shown.stdout.contains(#"Ada \"}{][\\\" Lovelace"#), "\(shown.stdout)\(shown.stderr)")

        let (server, origin) = try await ServerProcess.spawn(["--config", config, "--data", data], log: directory + "/serve.log")
        defer { server.stop() }
        let http = JSONHTTP(origin: origin)
        let login = "/api/client/v2.0/app/local/auth/providers/local-userpass/login"
        #expect(try await http.send(.POST, login, json: #"{"username":"user1@example.com","password":"user1passwore"}"#).status == 401)
        let signedIn = try await http.send(.POST, login, json: #"{"username":"user1@example.com","password":"user1password"}"#)
        #expect(signedIn.status == 200 && signedIn["user_id"] == "user1", "\(signedIn.text)")
        server.stop()
        let export = directory + "/after.ndjson"
        #expect(try await Binary.run(["admin", "--config", config, "--data", data, "export", export]).status == 0)
        let after = try String(contentsOfFile: export, encoding: .utf8)
        #expect(after.contains(#""passwordHash":"$argon2id$"#) && !after.contains("firebase-scrypt"), "rehashed at the login")

        // The CLI's other export format, CSV, as firebase-tools writes it: no header, 52
        // columns, GitHub's at 19 to 22, a quoted name, custom claims quoted with doubled quotes.
        var row = [String](repeating: "", count: 52)
        row[0] = "csv-user"
        row[1] = "csv@example.com"
        row[2] = "true"
        row[3] = "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
        row[4] = "42xEC+ixf3L2lw=="
        row[5] = #""Lovelace, Ada ""the first""""#
        row[19] = "583231"
        row[20] = "csv@example.com"
        row[23] = "1700000000000"
        row[26] = "false"
        row[27] = #""{""role"":""admin""}""#
        var second = [String](repeating: "", count: 52)
        second[0] = "csv-2"
        second[26] = "maybe"
        try Data((row.joined(separator: ",") + "\r\n\n" + second.joined(separator: ",") + "\n").utf8)
            .write(to: URL(fileURLWithPath: directory + "/users.csv"))
        let csvData = directory + "/csv-data"
        let csv = try await Binary.run(
            [
                "admin", "--config", config, "--data", csvData, "import", "--from", "firebase", directory + "/users.csv", "--hash-config",
                directory + "/hash.txt",
            ])
        #expect(csv.status == 1 && csv.stdout.hasPrefix("imported 1, skipped 0 (there already), rejected 1"), "\(csv.stdout)\(csv.stderr)")
        #expect(csv.stdout.contains("user 1: disabled must be true or false"), "\(csv.stdout)")
        let csvUser = try await Binary.run(["admin", "--config", config, "--data", csvData, "--json", "users", "show", "csv-user"]).stdout
        #expect(csvUser.contains(#""name":"Lovelace, Ada \"the first\"""#), "\(csvUser)")
        #expect(csvUser.contains(#""customData":{"role":"admin"}"#) && csvUser.contains(#""providerType":"oauth2-github""#), "\(csvUser)")
        let (csvServer, csvOrigin) = try await ServerProcess.spawn(["--config", config, "--data", csvData], log: directory + "/csv.log")
        defer { csvServer.stop() }
        let csvLogin = try await JSONHTTP(origin: csvOrigin).send(.POST, login, json: #"{"username":"csv@example.com","password":"user1password"}"#)
        #expect(csvLogin.status == 200 && csvLogin["user_id"] == "csv-user", "\(csvLogin.text)")

        let usage = try await Binary.run(["admin", "--data", data, "import", "--hash-config", "h", directory + "/users.json"])
        #expect(usage.status == 64 && usage.stderr.contains("--hash-config goes with --from firebase"), "\(usage.stderr)")
    }
}
