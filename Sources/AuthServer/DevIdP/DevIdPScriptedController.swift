// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// Scripts' decisions at the dev identity provider, with no browser (`/dev/idp/api/`, JSON
/// only, behind ``DevRequestGuard``): an authorize URL approved or denied, a device's user
/// code approved or denied.
struct DevIdPScriptedController {
    let idp: DevIdentityProvider

    /// Adds the routes to `group` (`/dev/idp/api`, guarded).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.post("approve", use: approve)
        group.post("device/approve", use: approveDevice)
    }

    /// `{url, identity | decision: "deny"}`: the redirect the browser would have followed.
    @Sendable func approve(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        let url = try body.string("url")
        guard let q = url.firstIndex(of: "?"), let query = FormEncoding.decode(url[url.index(after: q)...]) else {
            throw ServiceError(.invalidParameter, "parameter 'url' must be an authorize URL with its query")
        }
        let flavor: DevIdentityProvider.Flavor =
            url.contains("/dev/idp/github/") ? .github : url.contains("/dev/idp/facebook/") ? .facebook : .oidc
        let (formToken, _) = try idp.startAuthorization(flavor, query: query)
        let redirect = try idp.decide(page: formToken, identity: try DevIdPRequests.identity(body, deny: body.document["decision"] == "deny"))
        return JSONResponse.make(["redirect": .string(redirect)], mode: .relaxed)
    }

    /// `{userCode, identity | decision: "deny"}`.
    @Sendable func approveDevice(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        try idp.decideDevice(
            userCode: try body.string("userCode"), identity: try DevIdPRequests.identity(body, deny: body.document["decision"] == "deny"))
        return JSONResponse.empty
    }
}
