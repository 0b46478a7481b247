// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// A flow travels sealed in its state: starting one stores nothing; the state shows no
/// verifier, nonce, link token or client state; it opens under this server's key only (not
/// another server's, not with a byte changed, not spelt another way, not as another kind); and
/// it is spent once. Login codes are sealed in the store under the code.
@Suite(.timeLimit(.minutes(5))) struct OAuthFlowSealingTests {
    static func flow(app: String = "app") -> OAuthFlows.Flow {
        OAuthFlows.Flow(
            app: app, provider: "oauth2-google", redirect: "http://127.0.0.1:9/cb", clientState: "client-state",
            nonce: "NONCE-1234567890", verifier: "VERIFIER-1234567890", challenge: nil,
            linkToken: "LINK-ACCESS-TOKEN-123", deviceId: nil, expires: 1000)
    }

    static func flows(_ store: any AuthStore) async throws -> OAuthFlows {
        OAuthFlows(store: store, states: try await SealedStates(store: store))
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        return haystack.count >= n.count && (0...(haystack.count - n.count)).contains { Array(haystack[$0..<$0 + n.count]) == n }
    }

    @Test func aFlowIsSealedInItsStateAndTakenOnce() async throws {
        let store = try SQLiteStore(path: nil)
        let flows = try await Self.flows(store)
        let state = try flows.start(Self.flow())
        #expect(try await store.takeSignIn(id: SealedStates.id(state), kind: .flow) == nil, "nothing is stored at the start")
        let bytes = try #require(Base64.decode(state))
        for secret in ["NONCE-1234567890", "VERIFIER-1234567890", "LINK-ACCESS-TOKEN-123", "client-state", "oauth2-google"] {
            #expect(!Self.contains(bytes, secret) && !state.contains(secret), "\(secret) in the clear")
        }

        let elsewhere = try await Self.flows(try SQLiteStore(path: nil))
        #expect(try await elsewhere.take(state, now: 10) == nil, "another server's key does not open it")
        var changed = bytes
        changed[changed.count / 2] ^= 1
        #expect(try await flows.take(Base64.encode(changed, urlSafe: true), now: 10) == nil, "a changed byte")
        let padded = state + String(repeating: "=", count: (4 - state.utf8.count % 4) % 4)
        let standard = Base64.encode(bytes)
        for spelling in [padded, standard] where spelling != state {
            #expect(try await flows.take(spelling, now: 10) == nil, "another spelling of the same bytes: \(spelling)")
        }
        let challenge = try flows.states.seal(["purpose": "login"], kind: .passkey, app: "app", expires: 1000)
        #expect(try await flows.take(challenge, now: 10) == nil, "a passkey challenge is no flow")

        let flow = try #require(try await flows.take(state, now: 10))
        #expect(flow.linkToken == "LINK-ACCESS-TOKEN-123" && flow.verifier == "VERIFIER-1234567890" && flow.app == "app")
        #expect(try await flows.take(state, now: 10) == nil, "a state is used once")
        #expect(try await elsewhere.take(state, now: 10) == nil)
    }

    @Test func anExpiredFlowIsRefused() async throws {
        let flows = try await Self.flows(try SQLiteStore(path: nil))
        let state = try flows.start(Self.flow())
        #expect(try await flows.take(state, now: 1000) == nil, "expired at its expiry")
    }

    @Test func aLoginCodeCarriesItsProofSealed() async throws {
        let store = try SQLiteStore(path: nil)
        let flows = try await Self.flows(store)
        var proof = LoginService.Proof(
            identity: IdentityRecord(
                externalId: "sub-1", providerType: "oauth2-google", providerId: "p",
                data: ["name": "Ann"], email: "ann@example.com"))
        proof.profile = ["email": "ann@example.com"]
        proof.providerTokens = ["provider_access_token": "IDP-TOKEN-XYZ"]
        let (verifier, challenge) = ("v" + String(repeating: "x", count: 50), OAuthFlows.challenge(of: "v" + String(repeating: "x", count: 50)))
        let code = try await flows.issueCode(for: proof, flow: Self.flow(), challenge: challenge, now: 0)
        let sealed = try #require(try await store.takeSignIn(id: SealedStates.id(code), kind: .code))
        #expect(!Self.contains(sealed.sealed, "IDP-TOKEN-XYZ") && !Self.contains(sealed.sealed, "ann@example.com"))
        try await store.insertSignIn(sealed)

        let back = try await flows.redeem(code, verifier: verifier, app: "app", provider: "oauth2-google", now: 10)
        #expect(back.identity == proof.identity && back.profile == proof.profile && back.providerTokens == proof.providerTokens)
        await #expect(throws: ServiceError.self) { try await flows.redeem(code, verifier: verifier, app: "app", provider: "oauth2-google", now: 10) }
    }
}
