// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The dev identity provider's Facebook Graph API (`/dev/idp/facebook/`), the part sign-in
/// uses: is a token this app's, and whose.
struct DevIdPFacebookController {
    let idp: DevIdentityProvider
    let origin: ServerOrigin

    /// Adds the API to `group` (`/dev/idp/facebook`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("debug_token", use: debugToken)
        group.get("me", use: me)
    }

    /// Whether `input_token` is a user token of the app whose app token asks.
    @Sendable func debugToken(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let query = FormRequest.query(request)
        let app = FormEncoding.value("access_token", in: query) ?? ""
        guard let client = idp.clients[.facebook], app == client.id + "|" + client.secret else {
            throw ServiceError(.invalidSession, "Invalid OAuth access token (the app token)", status: 400)
        }
        let input = FormEncoding.value("input_token", in: query) ?? ""
        guard let grant = idp.grant(ofAccessToken: input), grant.flavor == .facebook, let identity = grant.identity else {
            return JSONResponse.make(["data": ["is_valid": false]], mode: .relaxed)
        }
        return JSONResponse.make(
            [
                "data": [
                    "app_id": .string(grant.clientId), "is_valid": true, "type": "USER",
                    "user_id": .string(idp.subject(of: identity.email, flavor: .facebook)),
                ]
            ], mode: .relaxed)
    }

    /// The token's user.
    @Sendable func me(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (grant, identity) = try DevIdPRequests.bearerGrant(request, idp: idp, flavor: .facebook)
        var me: EJSONDocument = [
            "id": .string(idp.subject(of: identity.email, flavor: .facebook)), "name": .string(identity.name),
            "picture": ["data": ["url": .string(try origin.resolve("/dev/idp/avatar.svg"))]],
        ]
        // Facebook gives the email only with the email permission, and only a confirmed one.
        if identity.verified, grant.scope.split(whereSeparator: { $0 == " " || $0 == "," }).contains("email") {
            me["email"] = .string(identity.email)
        }
        return JSONResponse.make(.document(me), mode: .relaxed)
    }
}
