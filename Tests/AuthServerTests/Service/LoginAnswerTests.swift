// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Testing

/// The profile in a login answer (authsh's addition) is what `GET auth/profile` answers then.
@Suite(.timeLimit(.minutes(5))) struct LoginAnswerTests {
    @Test func theAnswersProfileIsTheProfile() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("lee@example.com")
            var answers = [try await c.anonymous(), try await c.emailLogin("lee@example.com", "password1")]
            // A returning user, and one with two identities (linked).
            answers.append(try await c.emailLogin("lee@example.com", "password1"))
            let anon = try await c.anonymous()
            try await c.registerConfirmed("link@example.com")
            let linked = try await c.emailLogin("link@example.com", "password1", link: try #require(anon["access_token"]))
            #expect(linked.status == 200)
            answers.append(try await c.emailLogin("link@example.com", "password1"))
            for answer in answers {
                let given = try #require(answer.body["profile"], "\(answer.body)")
                let fetched = try await c.profile(try #require(answer["access_token"]))
                #expect(given == fetched.body)
                #expect(given["user_id"]?.stringValue == answer["user_id"])
            }
            #expect(answers.last?.body["profile"]?["identities"]?.arrayValue?.count == 2)
        }
    }
}
