// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Crypto

/// The redirect sign-in of Firebase's REST API: `createAuthUri` with a `providerId` starts it,
/// `signInWithIdp` with the page it lands on (`requestUri`) and the `sessionId` finishes it.
///
/// Google's servers send the browser from the provider straight to `continueUri` and exchange
/// the provider's code themselves. authsh runs its own redirect flow instead (``OAuthSignIn``,
/// the provider's registered redirect URI is authsh's callback, as for App Services' clients):
/// the callback exchanges the provider's code and sends the browser on to `continueUri` with a
/// single-use login code of authsh's (`?code=...&state=...`, 60 seconds), bound to the
/// `sessionId` as a PKCE verifier: the code signs in only beside the `sessionId` that started
/// the flow, which never travels in a URL. `continueUri` must be one of the provider's
/// `redirectURIs` or a loopback address (RFC 8252, authsh's own client). The redirect's
/// `state` is the hex SHA-256 of the `sessionId` (its first 32 characters), so the page can
/// check the answer is its own without the id in a URL.
extension FirebaseIdpSignIn {
    /// `createAuthUri` with `providerId`: the provider's authorization URL (`authUri`) and the
    /// `sessionId` that finishes the sign-in. `scopes` and `parameters` are Firebase's
    /// `oauthScope` and `customParameter` (`allow_signup`, `login_hint`, ...).
    func createAuthUri(
        providerId: String, continueUri: String, scopes: [String]?, parameters: [(String, String)], project: FirebaseProjects.Project,
        address: String
    ) async throws -> EJSONDocument {
        let app = project.app
        guard let type = FirebaseIdentities.providerType(providerId.lowercased()), type.hasPrefix("oauth2-"),
            let provider = app.oauth(type)
        else {
            throw FirebaseError.invalid("INVALID_PROVIDER_ID", "\(printable(providerId, limit: 64)) is no identity provider of this app")
        }
        guard let uri = RedirectURI(continueUri), uri.isLoopback || uri.isAllowed(by: provider.config.redirectURIs) else {
            throw FirebaseError.invalid(
                "INVALID_CONTINUE_URI", "continueUri must be a loopback address or one of \(type)'s redirectURIs")
        }
        let sessionId = Secrets.randomHex(bytes: 32)
        var start = OAuthSignIn.Start(
            redirect: continueUri, state: Self.redirectState(sessionId: sessionId),
            codeChallenge: OAuthFlows.challenge(of: sessionId), codeChallengeMethod: "S256")
        if let scopes, !scopes.isEmpty { start.scopes = scopes.joined(separator: ",") }
        start.providerParameters = parameters.map { ("idp_" + $0.0, $0.1) }
        let started: OAuthSignIn.Started
        do {
            started = try await oauth.start(app: app, provider: provider, start, address: address)
        } catch let error as ServiceError where error.code == .invalidParameter {
            throw FirebaseError.invalid("INVALID_ARGUMENT", error.message)
        }
        return [
            "kind": "identitytoolkit#CreateAuthUriResponse", "authUri": .string(started.location),
            "providerId": .string(FirebaseIdentities.providerId(type)), "sessionId": .string(sessionId),
        ]
    }

    /// The state a redirect started with `sessionId` comes back with.
    static func redirectState(sessionId: String) -> String {
        String(Hex.encode(Array(SHA256.hash(data: Array(sessionId.utf8)))).prefix(32))
    }

    /// The proof of a redirect's login code, redeemed with its `sessionId` (spent whatever
    /// the outcome); `INVALID_IDP_RESPONSE` for a code unknown, used, expired, another app's or
    /// another session's.
    func redeem(_ code: String, sessionId: String, app: AppRuntime, address: String) async throws -> LoginService.Proof {
        try await accounts.abuse.checkRate(.token, app: app, address: address)
        do {
            return try await accounts.login.flows.redeem(code, verifier: sessionId, app: app.id, provider: nil, now: accounts.clock.now)
        } catch let error as ServiceError where error.code == .authError {
            throw FirebaseError.invalid("INVALID_IDP_RESPONSE", error.message)
        }
    }
}
