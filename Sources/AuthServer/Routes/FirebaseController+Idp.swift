// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// `accounts:signInWithIdp`: an identity provider's credential, in Firebase's fields.
extension FirebaseController {
    /// `accounts:signInWithIdp` (``FirebaseIdpSignIn``): Firebase's `VerifyAssertionResponse`,
    /// with the tokens, or with `needConfirmation` and the `pendingToken` that links the
    /// credential later. With `returnIdpCredential` (the JS SDK always sets it), a link's
    /// refusal comes as `errorMessage` beside the credential, as Firebase gives it.
    func signInWithIdp(_ body: InputFields, project: FirebaseProjects.Project, address: String) async throws -> EJSONDocument {
        let postBody = try Self.optionalString(body, "postBody")
        let pendingToken = try Self.optionalString(body, "pendingToken")
        let credential: FirebaseIdpSignIn.Credential?
        // The popup and redirect flows send the provider's answer in `requestUri`; the SDKs'
        // own credentials (signInWithCredential) in `postBody`, with `requestUri` the app's page.
        if let postBody, FormEncoding.decode(postBody).flatMap({ FormEncoding.value("providerId", in: $0) }) != nil {
            credential = try FirebaseIdpSignIn.Credential(postBody: postBody)
        } else if pendingToken == nil, let requestUri = try Self.optionalString(body, "requestUri") {
            credential = try FirebaseIdpSignIn.Credential(
                requestUri: requestUri, postBody: postBody, sessionId: try Self.optionalString(body, "sessionId"))
        } else {
            credential = try postBody.map { text throws(FirebaseError) in try FirebaseIdpSignIn.Credential(postBody: text) }
        }
        guard credential != nil || pendingToken != nil else { throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "postBody is missing") }
        let answer: FirebaseIdpSignIn.Answer
        if body.document["idToken"] != nil { AuditTrail.event("link") }
        do {
            answer = try await idp.signIn(
                credential, pendingToken: pendingToken, idToken: try Self.optionalString(body, "idToken"), project: project, address: address)
        } catch let error as FirebaseError
            where error.message.hasPrefix("FEDERATED_USER_ID_ALREADY_LINKED") || error.message.hasPrefix("EMAIL_EXISTS")
        {
            guard body.document["returnIdpCredential"] == true, let credential else { throw error }
            var refused: EJSONDocument = [
                "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(credential.providerId),
                "errorMessage": .string(error.message),
            ]
            if let token = credential.idToken { refused["oauthIdToken"] = .string(token) }
            if let token = credential.accessToken { refused["oauthAccessToken"] = .string(token) }
            return refused
        }
        var d: EJSONDocument = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(answer.providerId),
            "federatedId": .string(answer.providerId == "google.com" ? "https://accounts.google.com/" + answer.rawId : answer.rawId),
            "emailVerified": .bool(answer.emailVerified),
        ]
        if let email = answer.email { d["email"] = .string(email) }
        if let name = answer.profile["name"]?.stringValue { d["displayName"] = .string(name) }
        if let url = answer.profile["picture_url"]?.stringValue { d["photoUrl"] = .string(url) }
        if let token = answer.oauthIdToken { d["oauthIdToken"] = .string(token) }
        if let token = answer.oauthAccessToken { d["oauthAccessToken"] = .string(token) }
        if let (pending, providers) = answer.needConfirmation {
            d["needConfirmation"] = true
            d["pendingToken"] = .string(pending)
            d["verifiedProvider"] = .array(providers.map(EJSON.string))
            return d
        }
        guard let signedIn = answer.signedIn else { throw FirebaseError.invalid("INVALID_IDP_RESPONSE") }
        for (key, value) in Self.tokens(signedIn, kind: "VerifyAssertionResponse") where key != "email" || d["email"] == nil {
            d[key] = value
        }
        d["isNewUser"] = .bool(signedIn.isNew)
        return d
    }
}
