// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// `accounts:signInWithIdp` through HTTP: the emulator's fake credentials in dev mode only, a
/// real ID token of the dev identity provider checked as App Services checks it, linking with
/// an `idToken`, and the account-exists answer whose `pendingToken` links the identity later.
@Suite(.timeLimit(.minutes(3))) struct FirebaseIdpTests {
    static func signIn(_ c: Client, key: String = "k", _ postBody: String, _ extra: EJSONDocument = [:]) async throws -> Reply {
        var body: EJSONDocument = ["postBody": .string(postBody), "requestUri": "http://localhost", "returnSecureToken": true]
        for (k, v) in extra { body[k] = v }
        return try await FirebaseAPITests.call(c, "signInWithIdp", key: key, .document(body))
    }

    static func fake(_ provider: String, _ claims: EJSONDocument) -> String {
        FormEncoding.encode([("id_token", String(decoding: EJSON.document(claims).encoded(.relaxed), as: UTF8.self)), ("providerId", provider)])
    }

    @Test func theEmulatorsFakeCredentialsSignInInDevMode() async throws {
        try await TestServer.run { c in
            let claims: EJSONDocument = [
                "sub": "g-1", "email": "ida@example.com", "email_verified": true, "name": "Ida", "picture": "https://example.com/i.png",
            ]
            let first = try await Self.signIn(c, Self.fake("google.com", claims))
            #expect(first.status == 200 && first.body["isNewUser"] == true, "\(first.body)")
            #expect(first["kind"] == "identitytoolkit#VerifyAssertionResponse" && first["providerId"] == "google.com")
            #expect(first["federatedId"] == "https://accounts.google.com/g-1" && first["email"] == "ida@example.com")
            #expect(first["displayName"] == "Ida" && first["photoUrl"] == "https://example.com/i.png" && first.body["emailVerified"] == true)
            let token = try FirebaseAPITests.parts(first["idToken"]).claims
            #expect(token["firebase"]?["sign_in_provider"] == "google.com" && token["firebase"]?["identities"]?["google.com"] == ["g-1"])
            #expect(token["email_verified"] == true && token["name"] == "Ida")

            // The same identity again, as an unsigned JWT this time: the same user.
            let jwt = FirebaseIDTokens.unsigned(claims)
            let again = try await Self.signIn(c, FormEncoding.encode([("id_token", jwt), ("providerId", "google.com")]))
            #expect(again["localId"] == first["localId"] && again.body["isNewUser"] == false, "\(again.body)")
            let looked = try await FirebaseAPITests.call(c, "lookup", ["idToken": again.body["idToken"]!])
            #expect(looked.body["users"]?.arrayValue?.first?["providerUserInfo"]?.arrayValue?.first?["providerId"] == "google.com")

            FirebaseAPITests.expectError(try await Self.signIn(c, "id_token=%7B%7D&providerId=google.com"), 400, "INVALID_IDP_RESPONSE")
            FirebaseAPITests.expectError(try await Self.signIn(c, "id_token=x"), 400, "INVALID_CREDENTIAL_OR_PROVIDER_ID")
            FirebaseAPITests.expectError(try await Self.signIn(c, "providerId=google.com"), 400, "INVALID_IDP_RESPONSE")
            FirebaseAPITests.expectError(try await Self.signIn(c, Self.fake("twitter.com", ["sub": "t"])), 400, "INVALID_PROVIDER_ID")
        }
    }

    @Test func productionTakesNoFakeCredential() async throws {
        var config = FirebaseAPITests.production()
        config.apps[0].providers.oauth["oauth2-google"] = OAuthProviderConfiguration(type: "oauth2-google", clientId: "client-1")
        try await TestServer.run(config) { c in
            let key = "key-of-project-one"
            let claims: EJSONDocument = ["sub": "g-1", "email": "ida@example.com", "email_verified": true]
            FirebaseAPITests.expectError(try await Self.signIn(c, key: key, Self.fake("google.com", claims)), 400, "INVALID_IDP_RESPONSE")
            let jwt = FormEncoding.encode([("id_token", FirebaseIDTokens.unsigned(claims)), ("providerId", "google.com")])
            FirebaseAPITests.expectError(try await Self.signIn(c, key: key, jwt), 400, "INVALID_IDP_RESPONSE")
            // A provider the app does not have.
            let github = FormEncoding.encode([("access_token", "gho_x"), ("providerId", "github.com")])
            FirebaseAPITests.expectError(try await Self.signIn(c, key: key, github), 400, "OPERATION_NOT_ALLOWED")
        }
    }

    /// A linked identity signs in to the same user; another user cannot take it.
    @Test func anIDTokenLinksTheCredentialToItsUser() async throws {
        try await TestServer.run { c in
            let anon = try await FirebaseAPITests.call(c, "signUp", [:])
            let github = Self.fake("github.com", ["sub": "gh-7", "email": "gh@example.com", "email_verified": true])
            let linked = try await Self.signIn(c, github, ["idToken": anon.body["idToken"]!])
            #expect(linked.status == 200 && linked["localId"] == anon["localId"], "\(linked.body)")
            let claims = try FirebaseAPITests.parts(linked["idToken"]).claims
            #expect(claims["firebase"]?["identities"]?["github.com"] == ["gh-7"], "\(claims)")
            let back = try await Self.signIn(c, github)
            #expect(back["localId"] == anon["localId"] && back.body["isNewUser"] == false, "\(back.body)")

            let other = try await FirebaseAPITests.call(c, "signUp", [:])
            FirebaseAPITests.expectError(
                try await Self.signIn(c, github, ["idToken": other.body["idToken"]!]), 400, "FEDERATED_USER_ID_ALREADY_LINKED")
            // As the JS SDK asks (returnIdpCredential): the refusal beside the credential.
            let sdk = try await Self.signIn(c, github, ["idToken": other.body["idToken"]!, "returnIdpCredential": true])
            #expect(sdk.status == 200 && sdk["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED" && sdk["oauthIdToken"] != nil, "\(sdk.body)")
            #expect(sdk["idToken"] == nil)
        }
    }

    /// With one account per email (Firebase's default, `allowDuplicateEmails: false`), a link
    /// whose verified email is another user's is refused: `EMAIL_EXISTS`.
    @Test func aLinkMayNotTakeAnotherUsersEmail() async throws {
        try await TestServer.run { c in
            let patched = try await c.call(.patch, "/emulator/v1/projects/local/config", json: ["signIn": ["allowDuplicateEmails": false]])
            #expect(patched.status == 200, "\(patched.body)")
            let owner = try await Self.signIn(c, Self.fake("github.com", ["sub": "gh-1", "email": "own@example.com", "email_verified": true]))
            #expect(owner.status == 200, "\(owner.body)")
            let anon = try await FirebaseAPITests.call(c, "signUp", [:])
            let google = Self.fake("google.com", ["sub": "g-1", "email": "own@example.com", "email_verified": true])
            FirebaseAPITests.expectError(try await Self.signIn(c, google, ["idToken": anon.body["idToken"]!]), 400, "EMAIL_EXISTS")
            let sdk = try await Self.signIn(c, google, ["idToken": anon.body["idToken"]!, "returnIdpCredential": true])
            #expect(sdk.status == 200 && sdk["errorMessage"] == "EMAIL_EXISTS" && sdk["idToken"] == nil, "\(sdk.body)")
            // The email's own user links it.
            let linked = try await Self.signIn(c, google, ["idToken": owner.body["idToken"]!])
            #expect(linked.status == 200 && linked["localId"] == owner["localId"], "\(linked.body)")
        }
    }

    /// A real ID token of the dev identity provider, checked by the app's Google provider. Its
    /// verified email is another user's: Firebase's `needConfirmation`, whose `pendingToken`
    /// links the identity once the person signs in as that user.
    @Test func anIdentityWhoseEmailIsTakenIsLinkedByItsPendingToken() async throws {
        try await AccountConflictTests.live { c, idp in
            try await c.registerConfirmed("ada@example.com")
            let token = try await idp.idToken(email: "ada@example.com")
            let postBody = FormEncoding.encode([("id_token", token), ("providerId", "google.com")])
            let exists = try await Self.signIn(c, postBody, ["returnIdpCredential": true])
            #expect(exists.status == 200 && exists.body["needConfirmation"] == true, "\(exists.body)")
            #expect(exists["email"] == "ada@example.com" && exists["idToken"] == nil && exists["oauthIdToken"] == token)
            #expect(exists.body["verifiedProvider"] == [], "the password provider is not listed, as Firebase answers")
            let pending = try #require(exists["pendingToken"])

            let ada = try await FirebaseAPITests.call(c, "signInWithPassword", ["email": "ada@example.com", "password": "password1"])
            let stranger = try await FirebaseAPITests.call(c, "signUp", [:])
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["pendingToken": .string(pending), "idToken": stranger.body["idToken"]!]),
                400, "INVALID_PENDING_TOKEN")
            let linked = try await FirebaseAPITests.call(c, "signInWithIdp", ["pendingToken": .string(pending), "idToken": ada.body["idToken"]!])
            #expect(linked.status == 200 && linked["localId"] == ada["localId"] && linked["providerId"] == "google.com", "\(linked.body)")
            // Used once.
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["pendingToken": .string(pending), "idToken": linked.body["idToken"]!]),
                400, "INVALID_PENDING_TOKEN")
            let viaGoogle = try await Self.signIn(
                c, FormEncoding.encode([("id_token", try await idp.idToken(email: "ada@example.com")), ("providerId", "google.com")]))
            #expect(viaGoogle["localId"] == ada["localId"], "\(viaGoogle.body)")
        }
    }
}
