// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Crypto
import Foundation
import Testing

/// Drives the dev identity provider as a person and a client would, through HTTP.
struct DevIdP {
    let c: Client
    /// The app's provider config as the dev API shows it.
    func provider(_ type: String) async throws -> EJSON {
        let config = try await c.call(.get, "\(Routes.dev)/apps/\(c.app)/config")
        return try #require(config.body["providers"]?[type], "\(type) is not configured")
    }

    /// The authorize path of the GitHub or OIDC flavour.
    static func authorizePath(_ type: String) -> String {
        type == "oauth2-github" ? "/dev/idp/github/login/oauth/authorize" : "/dev/idp/oidc/authorize"
    }

    /// A code for `identity`, as the IdP's redirect carries it back to `redirect`.
    func code(
        _ type: String, email: String, name: String = "Ada", verified: Bool = true,
        scope: String = "openid email profile read:user user:email", nonce: String? = nil,
        challenge: String? = nil, redirect: String = "http://127.0.0.1:9/cb"
    ) async throws -> String {
        let clientId = try #require(try await provider(type)["clientId"]?.stringValue)
        var query = [
            ("client_id", clientId), ("redirect_uri", redirect), ("response_type", "code"),
            ("scope", scope), ("state", "st8"),
        ]
        if let nonce { query.append(("nonce", nonce)) }
        if let challenge { query += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        let approve = try await c.call(
            .post, "/dev/idp/api/approve",
            json: [
                "url": .string(Self.authorizePath(type) + "?" + FormEncoding.encode(query)),
                "identity": ["email": .string(email), "name": .string(name), "verified": .bool(verified)],
            ])
        #expect(approve.status == 200, "\(approve.body)")
        let location = try #require(approve["redirect"])
        #expect(location.hasPrefix(redirect + "?"))
        let fields = try #require(FormEncoding.decode(location.split(separator: "?", maxSplits: 1)[1]))
        #expect(FormEncoding.value("state", in: fields) == "st8")
        return try #require(FormEncoding.value("code", in: fields))
    }

    /// The dev OIDC issuer's tokens for a code (the client's own exchange).
    func oidcTokens(code: String, redirect: String = "http://127.0.0.1:9/cb") async throws -> EJSON {
        let google = try await provider("oauth2-google")
        let reply = try await c.call(
            .post, "/dev/idp/oidc/token",
            json: [
                "grant_type": "authorization_code", "code": .string(code), "redirect_uri": .string(redirect),
                "client_id": google["clientId"]!, "client_secret": google["clientSecret"]!,
            ])
        #expect(reply.status == 200, "\(reply.body)")
        return reply.body
    }

    /// An ID token of the dev OIDC issuer for `email`.
    func idToken(email: String, verified: Bool = true, nonce: String? = nil) async throws -> String {
        let code = try await code("oauth2-google", email: email, verified: verified, nonce: nonce)
        return try #require(try await oidcTokens(code: code)["id_token"]?.stringValue)
    }

    /// PKCE: a verifier and its S256 challenge.
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }, urlSafe: true)
        return (verifier, Base64.encode(Array(SHA256.hash(data: Array(verifier.utf8))), urlSafe: true))
    }
}
