import AuthProtocol
import Hummingbird

/// The dev identity provider's Facebook Graph API (`/dev/idp/facebook/`): `debug_token` and `me`.
extension AuthService {
    /// Adds Facebook's Graph API under `facebook`.
    func addDevIdPFacebookRoutes(to root: RouterGroup<AuthRequestContext>, idp: DevIdentityProvider) {
        // Facebook's Graph API, the part sign-in uses: is a token this app's, and whose.
        let graph = root.group("facebook")
        graph.get("debug_token") { request, _ in
            let query = Self.query(request)
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
        graph.get("me") { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .facebook)
            var me: EJSONDocument = [
                "id": .string(idp.subject(of: identity.email, flavor: .facebook)), "name": .string(identity.name),
                "picture": ["data": ["url": .string(try self.origin.resolve("/dev/idp/avatar.svg"))]],
            ]
            // Facebook gives the email only with the email permission, and only a confirmed one.
            if identity.verified, grant.scope.split(whereSeparator: { $0 == " " || $0 == "," }).contains("email") {
                me["email"] = .string(identity.email)
            }
            return JSONResponse.make(.document(me), mode: .relaxed)
        }
    }
}
