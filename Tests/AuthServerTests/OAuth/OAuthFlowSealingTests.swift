// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Testing

/// Sign-ins under way are sealed in the store: what the table holds names no state, code,
/// verifier, nonce, link token or IdP token, and opens only with the state or code itself.
@Suite(.timeLimit(.minutes(5))) struct OAuthFlowSealingTests {
    static func flow(app: String = "app") -> OAuthFlows.Flow {
        OAuthFlows.Flow(
            app: app, provider: "oauth2-google", redirect: "http://127.0.0.1:9/cb", clientState: "client-state",
            nonce: "NONCE-1234567890", verifier: "VERIFIER-1234567890", challenge: nil,
            linkToken: "LINK-ACCESS-TOKEN-123", deviceId: nil, expires: 1000)
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        return haystack.count >= n.count && (0...(haystack.count - n.count)).contains { Array(haystack[$0..<$0 + n.count]) == n }
    }

    @Test func aFlowIsSealedUnderItsStateAndTakenOnce() async throws {
        let store = try SQLiteStore(path: nil)
        let flows = OAuthFlows(store: store)
        let state = try await flows.start(Self.flow(), now: 0)

        // What a reader of the table sees: a digest and a box.
        let sealed = try #require(try await store.takeSignIn(id: OAuthFlows.id(state), kind: .flow))
        #expect(sealed.id != state && !sealed.id.contains(state))
        for secret in [state, "NONCE-1234567890", "VERIFIER-1234567890", "LINK-ACCESS-TOKEN-123", "client-state"] {
            #expect(!Self.contains(sealed.sealed, secret), "\(secret) in the clear")
        }
        try await store.insertSignIn(sealed)

        // Opened by nothing but its state, for its own app.
        #expect(OAuthFlows.open(sealed, secret: state + "0") == nil)
        var moved = sealed
        moved.appId = "other"
        #expect(OAuthFlows.open(moved, secret: state) == nil, "the app is authenticated with the content")

        let flow = try #require(try await flows.take(state, now: 10))
        #expect(flow.linkToken == "LINK-ACCESS-TOKEN-123" && flow.verifier == "VERIFIER-1234567890" && flow.app == "app")
        #expect(try await flows.take(state, now: 10) == nil, "a state is used once")
    }

    @Test func anExpiredFlowIsRefusedAndLiveFlowsAreCounted() async throws {
        let store = try SQLiteStore(path: nil)
        let flows = OAuthFlows(store: store)
        let state = try await flows.start(Self.flow(), now: 0)
        #expect(try await flows.take(state, now: 1000) == nil, "expired at its expiry")
        for _ in 0..<3 { _ = try await flows.start(Self.flow(app: "busy"), now: 0) }
        #expect(try await store.liveSignIns(app: "busy", kind: .flow, at: 0) == 3)
    }

    @Test func aLoginCodeCarriesItsProofSealed() async throws {
        let store = try SQLiteStore(path: nil)
        let flows = OAuthFlows(store: store)
        var proof = LoginService.Proof(
            identity: IdentityRecord(
                externalId: "sub-1", providerType: "oauth2-google", providerId: "p",
                data: ["name": "Ann"], email: "ann@example.com"))
        proof.profile = ["email": "ann@example.com"]
        proof.providerTokens = ["provider_access_token": "IDP-TOKEN-XYZ"]
        let (verifier, challenge) = ("v" + String(repeating: "x", count: 50), OAuthFlows.challenge(of: "v" + String(repeating: "x", count: 50)))
        let code = try await flows.issueCode(for: proof, flow: Self.flow(), challenge: challenge, now: 0)
        let sealed = try #require(try await store.takeSignIn(id: OAuthFlows.id(code), kind: .code))
        #expect(!Self.contains(sealed.sealed, "IDP-TOKEN-XYZ") && !Self.contains(sealed.sealed, "ann@example.com"))
        try await store.insertSignIn(sealed)

        let back = try await flows.redeem(code, verifier: verifier, app: "app", provider: "oauth2-google", now: 10)
        #expect(back.identity == proof.identity && back.profile == proof.profile && back.providerTokens == proof.providerTokens)
        await #expect(throws: ServiceError.self) { try await flows.redeem(code, verifier: verifier, app: "app", provider: "oauth2-google", now: 10) }
    }
}
