import AuthProtocol
import HTTPTypes
import Hummingbird

/// The dev identity provider's OAuth 2.0 endpoints, which every flavour serves under its own path (authorize,
/// token, device authorization), and a script's approval of an authorize URL.
extension AuthService {
    /// Adds the authorize, token and device endpoints of each flavour, and `api/approve` to `scripted`.
    func addDevIdPOAuthRoutes(to root: RouterGroup<AuthRequestContext>, scripted: RouterGroup<AuthRequestContext>, idp: DevIdentityProvider) {
        for flavor in DevIdentityProvider.Flavor.allCases {
            let group = root.group(RouterPath(flavor.rawValue))
            let (authorize, token, device) =
                switch flavor {
                case .github: ("login/oauth/authorize", "login/oauth/access_token", "login/device/code")
                case .oidc: ("authorize", "token", "device")
                case .facebook: ("dialog/oauth", "oauth/access_token", "device/login")
                }
            group.get(RouterPath(authorize)) { request, _ in
                let (formToken, grant) = try idp.startAuthorization(flavor, query: Self.query(request))
                return Self.html(
                    DevIdPPages.authorize(
                        flavor: flavor, token: formToken, grant: grant,
                        identities: idp.identities, action: flavor.path + "/" + authorize))
            }
            group.post(RouterPath(authorize)) { request, context in
                let form = try await Self.form(request, context)
                let redirect = try idp.decide(
                    page: FormEncoding.value("request", in: form) ?? "",
                    identity: try Self.identity(form, idp: idp))
                return Response(status: .found, headers: [.location: redirect, .cacheControl: "no-store"])
            }
            group.post(RouterPath(token)) { request, context in
                let form = try await Self.form(request, context)
                do {
                    return JSONResponse.make(try await idp.token(flavor, form: form, basic: Self.basic(request)), mode: .relaxed)
                } catch let error as DevIdentityProvider.TokenError {
                    let body: EJSON = ["error": .string(error.error), "error_description": .string(error.description)]
                    // GitHub answers token errors with 200; OAuth 2.0 servers with 400 (401 for the client).
                    let status: HTTPResponse.Status = flavor == .github ? .ok : error.error == "invalid_client" ? .unauthorized : .badRequest
                    return JSONResponse.make(body, status: status, mode: .relaxed)
                }
            }
            group.post(RouterPath(device)) { request, context in
                let form = try await Self.form(request, context)
                let verification = try self.origin.resolve("/dev/idp/device")
                do {
                    return JSONResponse.make(
                        try idp.startDevice(
                            flavor, clientId: FormEncoding.value("client_id", in: form),
                            scope: FormEncoding.value("scope", in: form),
                            verificationURI: verification), mode: .relaxed)
                } catch let error as DevIdentityProvider.TokenError {
                    return JSONResponse.make(
                        ["error": .string(error.error), "error_description": .string(error.description)],
                        status: .badRequest, mode: .relaxed)
                }
            }
        }

        // A script approves an authorize URL without a browser (`scripted` takes JSON only).
        scripted.post("approve") { request, context in
            let body = try await RequestBody.read(request, context: context)
            let url = try body.string("url")
            guard let q = url.firstIndex(of: "?"), let query = FormEncoding.decode(url[url.index(after: q)...]) else {
                throw ServiceError(.invalidParameter, "parameter 'url' must be an authorize URL with its query")
            }
            let flavor: DevIdentityProvider.Flavor =
                url.contains("/dev/idp/github/")
                ? .github
                : url.contains("/dev/idp/facebook/") ? .facebook : .oidc
            let (formToken, _) = try idp.startAuthorization(flavor, query: query)
            let redirect = try idp.decide(page: formToken, identity: try Self.identity(body, deny: body.document["decision"] == "deny"))
            return JSONResponse.make(["redirect": .string(redirect)], mode: .relaxed)
        }
    }
}
