import AuthProtocol
import Crypto
import Synchronization

/// The redirect and loopback flows' pending state (identity-providers.md sections 3 and 3b):
/// flows waiting for the IdP's callback, by the `state` sent to the IdP (10 minutes, single
/// use), and login codes waiting for their native client (60 seconds, single use, bound to
/// the client's PKCE challenge).
///
/// Kept in this process: a callback must reach the instance that started its flow. (Several
/// instances behind one load balancer need them in the shared database: the PostgreSQL work.)
final class OAuthFlows: Sendable {
    /// A sign-in sent to the IdP.
    struct Flow: Sendable {
        var app: String
        var provider: String
        /// Where the client wants the answer, and its own state.
        var redirect: String
        var clientState: String
        /// The nonce and PKCE verifier this server sent the IdP.
        var nonce: String
        var verifier: String
        /// The native client's PKCE challenge: the loopback flow (a login code, no token in a URL).
        var challenge: String?
        /// The caller's access token when linking (realm-web's `link=true`).
        var linkToken: String?
        var deviceId: String?
        var expires: Int64
    }

    private struct LoginCode {
        var app: String
        var provider: String
        var challenge: String
        var proof: AuthService.Proof
        var expires: Int64
    }

    private struct State {
        var flows: [String: Flow] = [:]
        var codes: [String: LoginCode] = [:]
    }

    private let state = Mutex(State())
    static let flowLifetime: Int64 = 600
    static let codeLifetime: Int64 = 60
    /// Pending flows kept at most (each costs a few hundred bytes; starting one is rate limited).
    static let capacity = 20_000

    /// Keeps `flow`; the `state` to send the IdP.
    func start(_ flow: Flow, now: Int64) throws(ServiceError) -> String {
        let id = Secrets.randomHex(bytes: 20)
        let kept = state.withLock { s -> Bool in
            if s.flows.count >= Self.capacity { s.flows = s.flows.filter { $0.value.expires > now } }
            guard s.flows.count < Self.capacity else { return false }
            s.flows[id] = flow
            return true
        }
        guard kept else { throw ServiceError(.tooManyRequests, "too many sign-ins under way; try again in a minute", retryAfter: 60) }
        return id
    }

    /// The flow of an IdP callback's `state`, removed: a state is used once.
    func take(_ id: String, now: Int64) -> Flow? {
        state.withLock { s in s.flows.removeValue(forKey: id) }.flatMap { $0.expires > now ? $0 : nil }
    }

    /// A login code for the proof of a loopback flow.
    func issueCode(for proof: AuthService.Proof, flow: Flow, challenge: String, now: Int64) -> String {
        let code = Secrets.randomHex(bytes: 24)
        state.withLock { s in
            s.codes = s.codes.filter { $0.value.expires > now }
            s.codes[code] = LoginCode(app: flow.app, provider: flow.provider, challenge: challenge, proof: proof,
                                      expires: now + Self.codeLifetime)
        }
        return code
    }

    /// The proof a login code stands for. The code is spent whatever the outcome; it must be
    /// this app's and provider's, unexpired, and `verifier` must match its challenge (S256).
    func redeem(_ code: String, verifier: String, app: String, provider: String, now: Int64) throws(ServiceError) -> AuthService.Proof {
        guard let entry = state.withLock({ $0.codes.removeValue(forKey: code) }), entry.expires > now else {
            throw ServiceError(.authError, "login code is unknown, used or expired")
        }
        guard entry.app == app, entry.provider == provider else {
            throw ServiceError(.authError, "login code was issued for another app or provider")
        }
        guard Secrets.constantTimeEqual(Array(Self.challenge(of: verifier).utf8), Array(entry.challenge.utf8)) else {
            throw ServiceError(.authError, "login code: codeVerifier does not match the code_challenge")
        }
        return entry.proof
    }

    /// PKCE S256: base64url(SHA-256(verifier)).
    static func challenge(of verifier: String) -> String {
        Base64.encode(Array(SHA256.hash(data: Array(verifier.utf8))), urlSafe: true)
    }
}
