// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Crypto
import TestSupport
import Testing

/// Firebase's redirect sign-in on a live server with the dev identity provider:
/// `createAuthUri` with a `providerId` starts authsh's own flow, the callback sends the browser
/// to `continueUri` with a login code bound to the `sessionId`, and `signInWithIdp` with the
/// page's URL and the `sessionId` signs in (or links); and the ways to misuse it.
@Suite(.timeLimit(.minutes(3))) struct FirebaseRedirectTests {
    static let continueUri = "http://127.0.0.1:9/__/auth/handler"

    /// A flow started for `email` at the dev IdP and followed to `continueUri`: the page's
    /// URL and the `sessionId`.
    static func landed(_ c: Client, email: String, extra: EJSONDocument = [:]) async throws -> (page: String, sessionId: String) {
        var body: EJSONDocument = ["providerId": "github.com", "continueUri": .string(continueUri)]
        for (k, v) in extra { body[k] = v }
        let started = try await FirebaseAPITests.call(c, "createAuthUri", .document(body))
        #expect(started.status == 200 && started["providerId"] == "github.com", "\(started.body)")
        let authUri = try #require(started["authUri"]), sessionId = try #require(started["sessionId"])
        #expect(authUri.contains("/dev/idp/github/login/oauth/authorize?") && !authUri.contains(sessionId), "\(authUri)")
        let callback = try await OAuthFlowTests.approve(c, authUri, email: email)
        let hop = try await OAuthFlowTests.hop(c, callback)
        let page = try #require(hop.location, "\(hop.status) \(hop.body)")
        #expect(page.hasPrefix(continueUri + "?") && !page.contains(sessionId), "\(page)")
        return (page, sessionId)
    }

    @Test func aRedirectSignsInWithItsSessionOnce() async throws {
        try await OAuthFlowTests.live { c in
            let (page, sessionId) = try await Self.landed(c, email: "red@example.com")
            let fields = try OAuthFlowTests.fields(after: "?", in: page)
            let digest = Hex.encode(Array(SHA256.hash(data: Array(sessionId.utf8))))
            #expect(FormEncoding.value("state", in: fields) == String(digest.prefix(32)), "the state names the session by its digest")
            let signedIn = try await FirebaseAPITests.call(
                c, "signInWithIdp", ["requestUri": .string(page), "sessionId": .string(sessionId), "returnSecureToken": true])
            #expect(signedIn.status == 200 && signedIn["providerId"] == "github.com" && signedIn["email"] == "red@example.com", "\(signedIn.body)")
            #expect(signedIn.body["isNewUser"] == true && signedIn["idToken"] != nil)
            // Once only.
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": .string(page), "sessionId": .string(sessionId)]), 400,
                "INVALID_IDP_RESPONSE")
            // The same person again: the same user.
            let (again, againSession) = try await Self.landed(c, email: "red@example.com")
            let second = try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": .string(again), "sessionId": .string(againSession)])
            #expect(second["localId"] == signedIn["localId"] && second.body["isNewUser"] == false, "\(second.body)")
        }
    }

    /// A code is worth nothing beside another session's id, nor without one; a `continueUri`
    /// that is neither loopback nor the provider's, and a provider the app has not, are refused
    /// before the flow starts.
    @Test func aRedirectIsBoundToItsSessionAndItsPages() async throws {
        try await OAuthFlowTests.live { c in
            let (page, _) = try await Self.landed(c, email: "bound@example.com")
            let (_, otherSession) = try await Self.landed(c, email: "other@example.com")
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": .string(page), "sessionId": .string(otherSession)]), 400,
                "INVALID_IDP_RESPONSE")
            let (third, _) = try await Self.landed(c, email: "third@example.com")
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": .string(third)]), 400, "INVALID_IDP_RESPONSE")

            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(
                    c, "createAuthUri", ["providerId": "github.com", "continueUri": "https://evil.example.com/__/auth/handler"]), 400,
                "INVALID_CONTINUE_URI")
            let allowed = try await FirebaseAPITests.call(
                c, "createAuthUri", ["providerId": "github.com", "continueUri": "https://app.example.com/cb"])
            #expect(allowed.status == 200, "one of the provider's redirectURIs: \(allowed.body)")
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "createAuthUri", ["providerId": "twitter.com", "continueUri": .string(Self.continueUri)]),
                400, "INVALID_PROVIDER_ID")
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "createAuthUri", ["providerId": "github.com"]), 400, "MISSING_CONTINUE_URI")
            // The provider's own parameters pass; the protocol's are refused.
            let custom = try await FirebaseAPITests.call(
                c, "createAuthUri",
                [
                    "providerId": "github.com", "continueUri": .string(Self.continueUri), "customParameter": ["allow_signup": "false"],
                    "oauthScope": "read:user,repo",
                ])
            #expect(
                custom["authUri"]?.contains("allow_signup=false") == true && custom["authUri"]?.contains("scope=read%3Auser%20repo") == true,
                "\(custom.body)")
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(
                    c, "createAuthUri",
                    [
                        "providerId": "github.com", "continueUri": .string(Self.continueUri),
                        "customParameter": ["redirect_uri": "https://evil.example.com"],
                    ]),
                400, "INVALID_ARGUMENT")
        }
    }

    /// A redirect with the `idToken` of a signed-in user links the provider's identity to it.
    @Test func aRedirectLinksToTheUserOfAnIDToken() async throws {
        try await OAuthFlowTests.live { c in
            let guest = try await FirebaseAPITests.call(c, "signUp", ["returnSecureToken": true])
            let (page, sessionId) = try await Self.landed(c, email: "linked@example.com")
            let linked = try await FirebaseAPITests.call(
                c, "signInWithIdp", ["requestUri": .string(page), "sessionId": .string(sessionId), "idToken": guest.body["idToken"]!])
            #expect(linked.status == 200 && linked["localId"] == guest["localId"] && linked["providerId"] == "github.com", "\(linked.body)")
        }
    }
}
