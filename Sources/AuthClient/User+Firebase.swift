// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user's operations over Firebase Auth's API (``App/firebase``).
extension User {
    /// Links `credentials` as Firebase links them: an email and password through
    /// `accounts:signUp` with the user's ID token (the anonymous upgrade), a provider's token
    /// or a pending credential through `accounts:signInWithIdp` with it. The user signs in
    /// anew: new tokens, profile.
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

    /// Unlinks a provider as Firebase does: `accounts:update` with `deleteProvider` (every
    /// identity of that provider goes; Firebase names providers, not identities). Then the
    /// profile and identities are read again.
    func unlinkFirebase(_ project: FirebaseProject, providerType: String) async throws(AuthClientError) -> User {
        let reply = try await app.firebaseCall(
            project, "accounts:update", ["deleteProvider": [.string(App.firebaseProviderId(providerType))]], as: id)
        try keepFirebaseTokens(reply)
        _ = try await refreshProfile()
        return self
    }

    /// Changes the password over Firebase's API: `from` is checked by a sign-in with the
    /// user's email (``reauthenticate(with:)``: Firebase's `updatePassword` wants a recent
    /// login, and checks no old password itself), then `accounts:update` sets the new one.
    func changePasswordFirebase(_ project: FirebaseProject, from old: String, to new: String) async throws(AuthClientError) {
        guard let email = profile.email ?? identities.first(where: { $0.providerType == ProviderType.userpass })?.email else {
            throw AuthClientError(
                code: "OPERATION_NOT_ALLOWED", message: "user \(id) has no email/password identity whose password could change")
        }
        try await reauthenticate(with: .emailPassword(email: email, password: old))
        let reply = try await app.firebaseCall(project, "accounts:update", ["password": .string(new), "returnSecureToken": true], as: id)
        try keepFirebaseTokens(reply)
    }

    /// Keeps the tokens an `accounts:update` or `mfaEnrollment` answer carries (Firebase signs
    /// the user in anew after a password, email or factor change; authsh keeps the session).
    func keepFirebaseTokens(_ reply: EJSON) throws(AuthClientError) {
        guard let idToken = reply["idToken"]?.stringValue, let refresh = reply["refreshToken"]?.stringValue else { return }
        try app.change(id) { record in
            record?.accessToken = idToken
            record?.refreshToken = refresh
        }
    }
}
