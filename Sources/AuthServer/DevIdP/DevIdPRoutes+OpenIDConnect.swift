import AuthProtocol
import Hummingbird

/// The dev identity provider's OpenID Connect issuer (`/dev/idp/oidc/`): discovery, JWKS and userinfo.
extension AuthService {
    /// Adds the issuer's metadata, keys and userinfo under `oidc`.
    func addDevIdPOpenIDConnectRoutes(to root: RouterGroup<AuthRequestContext>, idp: DevIdentityProvider) {
        // The OpenID Connect issuer's metadata, keys and userinfo.
        let oidc = root.group("oidc")
        oidc.get(".well-known/openid-configuration") { _, _ in
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
        oidc.get("jwks") { _, _ in JSONResponse.make(try await idp.jwks, mode: .relaxed) }
        let userinfo: @Sendable (Request, AuthRequestContext) async throws -> Response = { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .oidc)
            return JSONResponse.make(.document(idp.claims(identity, scope: grant.scope)), mode: .relaxed)
        }
        oidc.get("userinfo", use: userinfo)
        oidc.post("userinfo", use: userinfo)
    }
}
