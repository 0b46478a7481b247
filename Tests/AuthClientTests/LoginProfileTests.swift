// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Synchronization
import Testing

/// A login is one request against authsh (its answer carries the profile), and still two
/// against a server whose answer does not: the user comes out the same.
@Suite(.timeLimit(.minutes(5))) struct LoginProfileTests {
    /// The real transport, with `profile` taken out of login answers: a server that does not
    /// send it (App Services).
    final class WithoutProfile: AuthTransport {
        let counter = RequestCounter()

        func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
            var response = try await counter.send(request)
            if request.url.hasSuffix("/login"), case .document(var body)? = try? EJSON(parsing: response.body) {
                body["profile"] = nil
                response.body = EJSON.document(body).encoded()
            }
            return response
        }
    }

    @Test func oneRequestWithTheProfileInTheAnswerTwoWithout() async throws {
        try await LiveServer.run { h in
            try await h.registerConfirmed(try h.app(), "pat@example.com")
            let counter = RequestCounter()
            let app = try h.app(counter: counter)
            let user = try await app.login(credentials: .emailPassword(email: "pat@example.com", password: "password1"))
            #expect(counter.count("GET", Routes.profile) == 0, "the profile came with the login")
            #expect(counter.count("POST", Routes.login("local", provider: "local-userpass")) == 1)

            let plain = WithoutProfile()
            let other = try App(id: "local", configuration: .init(baseURL: h.origin, requestTimeout: .seconds(60)), transport: plain)
            let same = try await other.login(credentials: .emailPassword(email: "pat@example.com", password: "password1"))
            #expect(plain.counter.count("GET", Routes.profile) == 1, "fetched when the answer has none")
            #expect(same.id == user.id && same.profile.email == "pat@example.com" && user.profile.email == "pat@example.com")
            #expect(same.identities.map(\.providerType) == user.identities.map(\.providerType))
            #expect(user.identities.first?.providerType == "local-userpass")

            let anonymous = try await app.login(credentials: .anonymous(reuse: false))
            #expect(anonymous.identities.first?.providerType == "anon-user" && counter.count("GET", Routes.profile) == 0)
        }
    }
}
