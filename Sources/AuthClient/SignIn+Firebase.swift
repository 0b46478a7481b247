// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto

/// ``App/signIn(provider:scopes:customParameters:presenter:timeout:)`` over Firebase Auth's
/// API: the redirect flow of the REST API, with a loopback listener as the page the provider
/// sends the browser back to.
///
/// `accounts:createAuthUri` with the provider, `continueUri` the listener's address, the
/// scopes (`oauthScope`) and parameters (`customParameter`) answers the provider's
/// authorization URL and a `sessionId`; the browser (or the dev identity provider, played
/// without one) goes there; the page it lands on, with the `sessionId`, goes to
/// `accounts:signInWithIdp` (`requestUri`). authsh's server binds the page's code to the
/// `sessionId`, which stays in this process, and names the session in the page's `state` by
/// its digest. The device flow is App Services' only.
extension App {
    func firebaseRedirectSignIn(
        _ project: FirebaseProject, _ type: String, scopes: [String]?, customParameters: [String: String], presenter: SignInPresenter,
        timeout: Duration
    ) async throws(AuthClientError) -> User {
        let listener = try LoopbackListener(expectedState: Hex.encode(SystemRandomNumberGenerator.bytes(16)))
        defer { listener.close() }
        var body: EJSONDocument = ["providerId": .string(Self.firebaseProviderId(type)), "continueUri": .string(listener.redirectURI)]
        if let scopes { body["oauthScope"] = .string(scopes.joined(separator: ",")) }
        if !customParameters.isEmpty {
            body["customParameter"] = .document(EJSONDocument(customParameters.sorted { $0.key < $1.key }.map { ($0.key, EJSON.string($0.value)) }))
        }
        let started = try await firebaseCall(project, "accounts:createAuthUri", body)
        guard let authUri = started["authUri"]?.stringValue, let sessionId = started["sessionId"]?.stringValue else {
            throw malformed("createAuthUri answered no authUri or sessionId")
        }
        listener.expect(state: String(Hex.encode(Array(SHA256.hash(data: Array(sessionId.utf8)))).prefix(32)))
        let fields = try await callback(on: listener, presenting: authUri, presenter, timeout: timeout)
        if let error = FormEncoding.value("error", in: fields) {
            throw AuthClientError(code: AuthClientError.signInFailed, message: error)
        }
        let credentials = Credentials(
            provider: type,
            body: [
                "provider": .string(type), "requestUri": .string(listener.redirectURI + "?" + FormEncoding.encode(fields)),
                "sessionId": .string(sessionId),
            ])
        return try await login(credentials: credentials)
    }
}
