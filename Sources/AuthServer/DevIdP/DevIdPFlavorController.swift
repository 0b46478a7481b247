// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird

/// The OAuth 2.0 endpoints one flavour of the dev identity provider serves under its own path
/// (`/dev/idp/github/`, `/dev/idp/oidc/`, `/dev/idp/facebook/`): the authorize page and its
/// decision, the token endpoint and device authorization, at the paths the real provider uses.
struct DevIdPFlavorController {
    let idp: DevIdentityProvider
    let origin: ServerOrigin
    let flavor: DevIdentityProvider.Flavor

    /// The flavour's paths: authorize, token, device authorization.
    var paths: (authorize: String, token: String, device: String) {
        switch flavor {
        case .github: ("login/oauth/authorize", "login/oauth/access_token", "login/device/code")
        case .oidc: ("authorize", "token", "device")
        case .facebook: ("dialog/oauth", "oauth/access_token", "device/login")
        }
    }

    /// Adds the endpoints to `group` (`/dev/idp/FLAVOUR`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get(RouterPath(paths.authorize), use: authorizePage)
        group.post(RouterPath(paths.authorize), use: decide)
        group.post(RouterPath(paths.token), use: token)
        group.post(RouterPath(paths.device), use: startDevice)
    }

    /// The page where the person picks or makes an identity, or denies.
    @Sendable func authorizePage(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (formToken, grant) = try idp.startAuthorization(flavor, query: FormRequest.query(request))
        return DevIdPRequests.html(
            DevIdPPages.authorize(
                flavor: flavor, token: formToken, grant: grant, identities: idp.identities, action: flavor.path + "/" + paths.authorize))
    }

    /// The page's answer: back to the client with a code, or an error.
    @Sendable func decide(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequest.form(request, context)
        let redirect = try idp.decide(
            page: FormEncoding.value("request", in: form) ?? "", identity: try DevIdPRequests.identity(form, idp: idp))
        return Response(status: .found, headers: [.location: redirect, .cacheControl: "no-store"])
    }

    /// Codes and device codes for tokens, with the provider's own error answers.
    @Sendable func token(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequest.form(request, context)
        do {
            return JSONResponse.make(try await idp.token(flavor, form: form, basic: DevIdPRequests.basic(request)), mode: .relaxed)
        } catch {
            let body: EJSON = ["error": .string(error.error), "error_description": .string(error.description)]
            // GitHub answers token errors with 200; OAuth 2.0 servers with 400 (401 for the client).
            let status: HTTPResponse.Status = flavor == .github ? .ok : error.error == "invalid_client" ? .unauthorized : .badRequest
            return JSONResponse.make(body, status: status, mode: .relaxed)
        }
    }

    /// A device authorization: the codes and where the person enters the user code.
    @Sendable func startDevice(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequest.form(request, context)
        let verification = try origin.resolve("/dev/idp/device")
        do {
            return JSONResponse.make(
                try idp.startDevice(
                    flavor, clientId: FormEncoding.value("client_id", in: form), scope: FormEncoding.value("scope", in: form),
                    verificationURI: verification), mode: .relaxed)
        } catch {
            return JSONResponse.make(
                ["error": .string(error.error), "error_description": .string(error.description)], status: .badRequest, mode: .relaxed)
        }
    }
}
