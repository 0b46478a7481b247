// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// What Firebase Auth's API has and App Services' has not: the user's display name and photo,
/// an email change, an email's verification mail. Over App Services' API each fails with
/// `NotInProtocol`, naming the app's protocol.
extension User {
    /// Sets the user's display name and photo URL (Firebase's `updateProfile`); nil leaves one
    /// as it is, an empty string removes it. The profile here follows.
    public func updateProfile(displayName: String? = nil, photoURL: String? = nil) async throws(AuthClientError) {
        let project = try firebaseOnly("updating the profile")
        var body: EJSONDocument = [:]
        var removed: [EJSON] = []
        if let displayName { if displayName.isEmpty { removed.append("DISPLAY_NAME") } else { body["displayName"] = .string(displayName) } }
        if let photoURL { if photoURL.isEmpty { removed.append("PHOTO_URL") } else { body["photoUrl"] = .string(photoURL) } }
        if !removed.isEmpty { body["deleteAttribute"] = .array(removed) }
        _ = try await app.firebaseCall(project, "accounts:update", body, as: id)
        _ = try await refreshProfile()
    }

    /// Moves the user's email/password account to `email` at once (Firebase's `updateEmail`;
    /// refused with `OPERATION_NOT_ALLOWED` where the project protects emails from
    /// enumeration: use ``verifyBeforeUpdateEmail(_:)`` there). Wants a recent login.
    public func updateEmail(_ email: String) async throws(AuthClientError) {
        let project = try firebaseOnly("changing the email")
        let reply = try await app.firebaseCall(project, "accounts:update", ["email": .string(email), "returnSecureToken": true], as: id)
        try keepFirebaseTokens(reply)
        _ = try await refreshProfile()
    }

    /// Mails `email` a link that moves the account there once followed (Firebase's
    /// `verifyBeforeUpdateEmail`: `sendOobCode` `VERIFY_AND_CHANGE_EMAIL`); the email does not
    /// change before. Wants a recent login.
    public func verifyBeforeUpdateEmail(_ email: String) async throws(AuthClientError) {
        let project = try firebaseOnly("changing the email")
        _ = try await app.firebaseCall(
            project, "accounts:sendOobCode", ["requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": .string(email)], as: id)
    }

    /// Mails the user's email a link that verifies it (Firebase's `sendEmailVerification`).
    public func sendEmailVerification() async throws(AuthClientError) {
        let project = try firebaseOnly("sending a verification mail for a signed-in user")
        _ = try await app.firebaseCall(project, "accounts:sendOobCode", ["requestType": "VERIFY_EMAIL"], as: id)
    }

    /// The app's Firebase project; `NotInProtocol` naming `what` for an App Services app. The
    /// user must be logged in.
    func firebaseOnly(_ what: String) throws(AuthClientError) -> FirebaseProject {
        guard let project = app.firebase else { throw app.onlyFirebase(what) }
        _ = try app.loggedIn(id)
        return project
    }
}

extension EmailPasswordAuth {
    /// Mails `email` a sign-in link (Firebase's `sendSignInLinkToEmail`: `sendOobCode`
    /// `EMAIL_SIGNIN`), which ``Credentials/emailLink(email:link:)`` signs in with; the link
    /// leads to `continueURL`.
    public func sendSignInLink(email: String, continueURL: String = "http://localhost") async throws(AuthClientError) {
        guard let project = app.firebase else { throw app.onlyFirebase("an email sign-in link") }
        _ = try await app.firebaseCall(
            project, "accounts:sendOobCode",
            ["requestType": "EMAIL_SIGNIN", "email": .string(email), "continueUrl": .string(continueURL), "canHandleCodeInApp": true])
    }
}

extension App {
    /// The error of an operation only Firebase Auth's API has, naming this app's protocol.
    func onlyFirebase(_ what: String) -> AuthClientError {
        AuthClientError(
            code: AuthClientError.notInProtocol, message: "\(what) is Firebase Auth's only: app '\(id)' speaks App Services")
    }
}
