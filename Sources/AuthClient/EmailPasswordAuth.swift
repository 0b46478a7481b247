// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Email/password registration, confirmation and reset (docs/protocol/wire-protocol.md section 6).
///
/// Over Firebase Auth's API (``App/firebase``): registration is `accounts:signUp` and a
/// VERIFY_EMAIL mail, as App Services' registration mails a confirmation (the user is not
/// logged in here, as after App Services' registration), a confirmation applies the
/// `oobCode` of a VERIFY_EMAIL mail, a reset mail is `sendOobCode` PASSWORD_RESET and a reset
/// takes its `oobCode`: the code is `tokenId + token`, so an emulator's code passes as `token`
/// with an empty `tokenId`, and authsh's dev outbox's mail (whose code it splits in two) as it
/// comes. What Firebase has not
/// (a confirmation sent again by email alone, the Lua confirmation and reset functions) fails
/// naming the protocol.
public struct EmailPasswordAuth: Sendable {
    let app: App

    private func post(_ action: String, _ body: EJSONDocument) async throws(AuthClientError) {
        _ = try await app.request("POST", Routes.userpass(app.id, action), body: .document(body), auth: .none)
    }

    public func registerUser(email: String, password: String) async throws(AuthClientError) {
        if let firebase = app.firebase {
            let made = try await app.firebaseCall(
                firebase, "accounts:signUp", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
            guard let idToken = made["idToken"] else { throw app.malformed("the sign-up answer has no idToken") }
            _ = try await app.firebaseCall(firebase, "accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": idToken])
            return
        }
        try await post("register", ["email": .string(email), "password": .string(password)])
    }

    public func confirmUser(token: String, tokenId: String) async throws(AuthClientError) {
        if let firebase = app.firebase {
            _ = try await app.firebaseCall(firebase, "accounts:update", ["oobCode": .string(tokenId + token)])
            return
        }
        try await post("confirm", ["token": .string(token), "tokenId": .string(tokenId)])
    }

    public func resendConfirmationEmail(email: String) async throws(AuthClientError) {
        try await post("confirm/send", ["email": .string(email)])
    }

    /// Runs the server's confirmation function again.
    public func retryCustomConfirmation(email: String) async throws(AuthClientError) {
        try await post("confirm/call", ["email": .string(email)])
    }

    public func sendResetPasswordEmail(email: String) async throws(AuthClientError) {
        if let firebase = app.firebase {
            _ = try await app.firebaseCall(firebase, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)])
            return
        }
        try await post("reset/send", ["email": .string(email)])
    }

    public func resetPassword(token: String, tokenId: String, password: String) async throws(AuthClientError) {
        if let firebase = app.firebase {
            _ = try await app.firebaseCall(
                firebase, "accounts:resetPassword", ["oobCode": .string(tokenId + token), "newPassword": .string(password)])
            return
        }
        try await post("reset", ["token": .string(token), "tokenId": .string(tokenId), "password": .string(password)])
    }

    /// Runs the server's reset function with `arguments` after the request.
    public func callResetPasswordFunction(email: String, password: String, arguments: [EJSON] = []) async throws(AuthClientError) {
        try await post("reset/call", ["email": .string(email), "password": .string(password), "arguments": .array(arguments)])
    }
}
