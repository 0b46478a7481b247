// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user's operations over Firebase Auth's API (``App/firebase``).
extension User {
    /// Links `credentials` as Firebase links them: an email and password through
    /// `accounts:signUp` with the user's ID token (the anonymous upgrade), a provider's token
    /// through `accounts:signInWithIdp` with it. The user signs in anew: new tokens, profile.
    func linkFirebase(_ project: FirebaseProject, _ credentials: Credentials) async throws(AuthClientError) -> User {
        var (method, body) = try app.firebaseSignIn(credentials)
        if credentials.provider == ProviderType.userpass { method = "accounts:signUp" }
        let reply = try await app.firebaseCall(project, method, body, as: id)
        if let message = reply["errorMessage"]?.stringValue {
            // signInWithIdp's refusal of a link, with the credential beside it.
            throw App.firebaseError(["error": ["message": .string(message)]], status: 400, origin: project.origin)
        }
        let signedIn = try await app.firebaseLoginReply(project, reply)
        guard signedIn.userId == id else { throw app.malformed("the link answered another user") }
        try app.change(id) { record in
            guard record != nil else { return }
            signedIn.apply(to: &record!)
        }
        return self
    }
}
