// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird

/// The routes of the `oauth2-*` providers' flows: the start of the redirect flow, the start of
/// the device flow, and the callback the identity provider sends the browser back to (a GET,
/// or a form POST from Apple). They read queries, forms and cookies and write redirects and
/// cookies; the flows themselves are ``OAuthSignIn``'s.
struct OAuthController {
    let apps: [String: AppRuntime]
    let signIn: OAuthSignIn
    /// Tells whether the request came over https (the link-binding cookie's `Secure`).
    let adminChannel: AdminChannel

    /// Adds the routes under the client API.
    func addRoutes(to router: Router<AuthRequestContext>) {
        let provider = router.group(RouterPath(Routes.base + "/app/:app/auth/providers/:provider"))
            .add(middleware: AppMiddleware(apps: apps))
        provider.get("login", use: startRedirect)
        provider.post("device", use: startDevice)
        let callback = RouterPath(Routes.base + "/auth/callback")
        router.get(callback, use: callbackQuery)
        router.post(callback, use: callbackForm)
    }

    /// The app and the enabled `oauth2-*` provider named in the path, or 404.
    private func oauthProvider(_ context: AuthRequestContext) throws(ServiceError) -> (AppRuntime, OAuthProvider) {
        let app = try context.app
        return (app, try OAuthSignIn.provider(context.parameters.get("provider") ?? "", of: app))
    }

    /// Sends the browser to the identity provider (`?redirect=&state=`, PKCE for loopback;
    /// `link=true` with the caller's access token links).
    @Sendable func startRedirect(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, provider) = try oauthProvider(context)
        let query = FormRequest.query(request)
        func q(_ key: String) -> String? { FormEncoding.value(key, in: query) }
        let start = OAuthSignIn.Start(
            redirect: q("redirect"), state: q("state"), codeChallenge: q("code_challenge"),
            codeChallengeMethod: q("code_challenge_method"), linkToken: q("link") == "true" ? try request.bearerToken() : nil,
            device: q("device"), scopes: q("scopes"), providerParameters: query.filter { $0.0.hasPrefix("idp_") })
        let started = try await signIn.start(app: app, provider: provider, start, address: context.clientAddress)
        var response: Response
        if q("providerRedirectHeader") == "true" {
            response = JSONResponse.empty
            response.headers[HTTPField.Name("X-Baas-Location")!] = started.location
        } else {
            response = Response(status: .found, headers: [.location: started.location, .cacheControl: "no-store"])
        }
        if let binding = started.binding {
            let cookie = LinkBinding.setCookie(state: started.state, value: binding.value, verdict: adminChannel.verdict(request, context))
            response.headers.append(HTTPField(name: .setCookie, value: cookie))
        }
        return response
    }

    /// A device authorization: the code to show and where to enter it.
    @Sendable func startDevice(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, provider) = try oauthProvider(context)
        let body = try await InputFields.read(request, context: context)
        var scopes: [String]?
        if case .array(let list)? = body.document["scopes"] { scopes = list.compactMap(\.stringValue) }
        return JSONResponse.make(
            try await signIn.startDevice(app: app, provider: provider, scopes: scopes, address: context.clientAddress), mode: .relaxed)
    }

    @Sendable func callbackQuery(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await finish(FormRequest.query(request), request, context)
    }

    /// Apple answers with a form post when it is asked for the name or email.
    @Sendable func callbackForm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await finish(try await FormRequest.form(request, context), request, context)
    }

    /// The IdP's answer: the flow finished, the browser sent on (its binding cookie cleared).
    private func finish(_ parameters: [(String, String)], _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let callback = OAuthSignIn.Callback(parameters: parameters) { state, digest in
            LinkBinding.accepts(request, state: state, digest: digest)
        }
        let finished = try await signIn.finish(callback, address: context.clientAddress)
        var response = Response(status: .found, headers: [.location: finished.location, .cacheControl: "no-store"])
        if finished.wasBound {
            for clear in LinkBinding.clearCookies(state: finished.state, verdict: adminChannel.verdict(request, context)) {
                response.headers.append(HTTPField(name: .setCookie, value: clear))
            }
        }
        return response
    }
}
