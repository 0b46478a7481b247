// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The dev identity provider's GitHub REST API (`/dev/idp/github/api/`), the part sign-in
/// uses: the user, their emails, and the token check.
struct DevIdPGitHubController {
    let idp: DevIdentityProvider
    let origin: ServerOrigin

    /// Adds the API to `group` (`/dev/idp/github/api`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("user", use: user)
        group.get("user/emails", use: emails)
        group.post("applications/:client/token", use: checkToken)
    }

    @Sendable func user(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (_, identity) = try DevIdPRequests.bearerGrant(request, idp: idp, flavor: .github)
        return JSONResponse.make(
            [
                "id": .int64(Int64(idp.subject(of: identity.email, flavor: .github)) ?? 0),
                "login": .string(String(identity.email.split(separator: "@")[0])),
                "name": .string(identity.name), "email": .null,
                "avatar_url": .string(try origin.resolve("/dev/idp/avatar.svg")),
            ], mode: .relaxed)
    }

    /// The user's emails, with the `user:email` scope only.
    @Sendable func emails(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (grant, identity) = try DevIdPRequests.bearerGrant(request, idp: idp, flavor: .github)
        guard grant.scope.split(whereSeparator: { $0 == " " || $0 == "," }).contains("user:email") else {
            throw ServiceError(.notFound, "Not Found (the token lacks the user:email scope)")
        }
        return JSONResponse.make(
            [["email": .string(identity.email), "primary": true, "verified": .bool(identity.verified), "visibility": "private"]],
            mode: .relaxed)
    }

    /// An app's check of a token it holds (Basic auth with the app's id and secret).
    @Sendable func checkToken(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let (id, secret) = DevIdPRequests.basic(request), id == context.parameters.get("client"),
            let client = idp.clients[.github], id == client.id,
            Secrets.constantTimeEqual(Array(secret.utf8), Array(client.secret.utf8))
        else { throw ServiceError(.notFound, "Not Found") }
        let body = try await InputFields.read(request, context: context)
        guard let grant = idp.grant(ofAccessToken: try body.string("access_token")), grant.flavor == .github, grant.clientId == id
        else { throw ServiceError(.notFound, "Not Found") }
        return JSONResponse.make(["scopes": .array(grant.scope.split(separator: " ").map { .string(String($0)) })], mode: .relaxed)
    }
}
