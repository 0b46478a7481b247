// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The dev identity provider's OpenID Connect issuer (`/dev/idp/oidc/`): discovery, keys and
/// userinfo.
struct DevIdPOpenIDConnectController {
    let idp: DevIdentityProvider

    /// Adds the issuer's routes to `group` (`/dev/idp/oidc`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get(".well-known/openid-configuration", use: configuration)
        group.get("jwks", use: keys)
        group.get("userinfo", use: userinfo)
        group.post("userinfo", use: userinfo)
    }

    @Sendable func configuration(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let issuer = try idp.issuer
        return JSONResponse.make(
            [
                "issuer": .string(issuer),
                "authorization_endpoint": .string(issuer + "/authorize"), "token_endpoint": .string(issuer + "/token"),
                "userinfo_endpoint": .string(issuer + "/userinfo"), "jwks_uri": .string(issuer + "/jwks"),
                "device_authorization_endpoint": .string(issuer + "/device"),
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
                "scopes_supported": ["openid", "email", "profile"],
                "grant_types_supported": ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"],
                "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
            ], mode: .relaxed)
    }

    @Sendable func keys(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await idp.jwks, mode: .relaxed)
    }

    @Sendable func userinfo(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (grant, identity) = try DevIdPRequests.bearerGrant(request, idp: idp, flavor: .oidc)
        return JSONResponse.make(.document(idp.claims(identity, scope: grant.scope)), mode: .relaxed)
    }
}
