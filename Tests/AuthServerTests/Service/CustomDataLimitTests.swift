// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Testing

/// One limit for custom data wherever it comes in (a plugin, the admin API, import): it rides
/// in every access token of its user, and past the limit that user could get none.
@Suite(.timeLimit(.minutes(5))) struct CustomDataLimitTests {
    static func nested(_ levels: Int) -> EJSON {
        var value: EJSON = ["leaf": 1]
        for _ in 1..<levels { value = ["n": value] }
        return value
    }

    @Test func theAdminAPIAndImportTakeNoMoreThanAPluginCan() async throws {
        try await AdminTransferTests.withTwoServers { a, b in
            try await a.registerConfirmed("big@example.com", "Pass-word-1")
            let login = try await a.emailLogin("big@example.com", "Pass-word-1")
            let id = try #require(login["user_id"])
            let big: EJSON = ["blob": .string(String(repeating: "x", count: 200_000))]
            for (value, limit) in [(big, "16384"), (Self.nested(40), "levels")] {
                let refused = try await AdminHarness.admin(a, .put, "/users/\(id)/custom_data", json: value)
                #expect(
                    refused.status == 400 && refused.code == "InvalidParameter" && refused.message?.contains(limit) == true,
                    "\(refused.body)")
            }
            #expect(try await AdminHarness.admin(a, .put, "/users/\(id)/custom_data", json: Self.nested(18)).status == 200)
            // The user still gets tokens, with the data in them.
            let again = try await a.emailLogin("big@example.com", "Pass-word-1")
            let profile = try await a.profile(try #require(again["access_token"]))
            #expect(again.status == 200 && profile.status == 200)

            // An exported line whose custom data is over the limit is refused by import.
            let line = try #require(try await AdminTransferTests.export(a).split(separator: "\n").first { $0.contains(id) })
            guard case .document(var user) = try EJSON(parsing: Array(line.utf8)) else { Issue.record("not a document"); return }
            user["customData"] = big
            let file = EJSON.document(user).encodedString(.relaxed) + "\n"
            let imported = try await AdminTransferTests.importing(b, file, continueOnError: true)
            let reason = imported.body["rejected"]?.arrayValue?.first?["reason"]?.stringValue ?? ""
            #expect(
                imported.body["rejectedCount"]?.integerValue == 1 && reason.contains("customData") && reason.contains("16384"),
                "\(imported.body)")
        }
    }
}
