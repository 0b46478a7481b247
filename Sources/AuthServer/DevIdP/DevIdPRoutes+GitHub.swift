import AuthProtocol
import Hummingbird

/// The dev identity provider's GitHub REST API (`/dev/idp/github/api/`): the user, their emails, and the
/// token check.
extension AuthService {
    /// Adds GitHub's REST API under `github/api`.
    func addDevIdPGitHubRoutes(to root: RouterGroup<AuthRequestContext>, idp: DevIdentityProvider) {
        // GitHub's REST API, the part sign-in uses.
        let api = root.group("github/api")
        api.get("user") { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .github)
            _ = grant
            return JSONResponse.make(
                [
                    "id": .int64(Int64(idp.subject(of: identity.email, flavor: .github)) ?? 0),
                    "login": .string(String(identity.email.split(separator: "@")[0])),
                    "name": .string(identity.name), "email": .null,
                    "avatar_url": .string(try self.origin.resolve("/dev/idp/avatar.svg")),
                ], mode: .relaxed)
        }
        api.get("user/emails") { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .github)
            guard grant.scope.split(whereSeparator: { $0 == " " || $0 == "," }).contains("user:email") else {
                throw ServiceError(.notFound, "Not Found (the token lacks the user:email scope)")
            }
            return JSONResponse.make(
                [
                    [
                        "email": .string(identity.email), "primary": true,
                        "verified": .bool(identity.verified), "visibility": "private",
                    ]
                ], mode: .relaxed)
        }
        api.post("applications/:client/token") { request, context in
            guard let (id, secret) = Self.basic(request), id == context.parameters.get("client"),
                let client = idp.clients[.github], id == client.id,
                Secrets.constantTimeEqual(Array(secret.utf8), Array(client.secret.utf8))
            else { throw ServiceError(.notFound, "Not Found") }
            let body = try await RequestBody.read(request, context: context)
            guard let grant = idp.grant(ofAccessToken: try body.string("access_token")), grant.flavor == .github,
                grant.clientId == id
            else { throw ServiceError(.notFound, "Not Found") }
            return JSONResponse.make(["scopes": .array(grant.scope.split(separator: " ").map { .string(String($0)) })], mode: .relaxed)
        }
    }
}
