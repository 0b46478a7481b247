// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import HTTPTypes
import Hummingbird
import NIOCore

/// The Auth emulator's sign-in pages, for Firebase's `signInWithPopup` and
/// `signInWithRedirect` in dev mode (firebase-tools' `src/emulator/auth/handlers.ts` and
/// `widget_ui.ts`, read for what the JavaScript SDK opens and expects):
///
/// - `GET /emulator/auth/handler?apiKey&providerId&authType&redirectUrl&appName&eventId[&tid]`,
///   the page the SDK opens in a popup or navigates to: a person picks one of the project's
///   accounts of that provider, or makes a fake one (email, display name, screen name, photo
///   URL). The answer is the emulator's: an `AuthEvent` whose `urlResponse` is this page's URL
///   with `providerId` and `id_token` (a JSON object of claims), which the SDK sends as
///   `signInWithIdp`'s `requestUri`. A popup posts it to the SDK's iframe in the opener (a frame
///   of this origin with the same `apiKey` and `appName`); a redirect keeps it in this origin's
///   `sessionStorage` (`firebase:redirectEvent:KEY:APP`) and goes back to `redirectUrl`, an
///   http(s) URL only.
/// - `GET /emulator/auth/iframe`, the SDK's hidden iframe: it hands the SDK the kept redirect
///   event and the popup's, through Google's `gapi.iframes` (loaded from apis.google.com, as the
///   emulator's iframe loads it). Events it holds are in `window.authshAuthEvents` too.
///
/// Dev mode only, and only for requests addressed to a loopback host when the server listens
/// on one (a rebound DNS name must not read the list of accounts). The pages' scripts are files
/// of their own, so the Content-Security-Policy allows no inline script.
struct FirebaseAuthHandlerPage {
    let projects: FirebaseProjects
    let store: any AdminStore
    let origin: PublicOrigin

    func addRoutes(to router: Router<AuthRequestContext>) {
        router.get("emulator/auth/handler", use: handler)
        router.get("emulator/auth/handler.js", use: handlerScript)
        router.get("emulator/auth/iframe", use: iframe)
        router.get("emulator/auth/iframe.js", use: iframeScript)
    }

    /// The account picker.
    @Sendable func handler(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try checkHost(request)
        let query = request.uri.queryParameters
        guard let apiKey = query.get("apiKey"), !apiKey.isEmpty, let providerId = query.get("providerId")?.lowercased(), !providerId.isEmpty
        else {
            return JSONResponse.make(["authEmulator": ["error": "missing apiKey or providerId query parameters"]], status: .badRequest)
        }
        let project: FirebaseProjects.Project
        do { project = try projects.project(apiKey: apiKey) } catch { return error.response }
        guard let type = FirebaseIdentities.providerType(providerId), type.hasPrefix("oauth2-") else {
            return JSONResponse.make(
                ["authEmulator": ["error": .string("\(providerId) is no identity provider of this server")]], status: .badRequest)
        }
        var listing = UserQuery()
        listing.provider = type
        listing.limit = 50
        let users = try await store.listUsers(app: project.app.id, query: listing)
        let accounts = users.compactMap { record in record.user.identities.first { $0.providerType == type } }.map(Self.account)
        let e = DevIdPPages.escape
        let name = e(providerId)
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Sign in with \(name)</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"></head>
            <body data-provider-id="\(name)">
            <h1>Sign in with \(name)</h1>
            <p>authsh's dev server stands in for \(name), as the Firebase Auth emulator does: pick an account, or make one.
            Nothing leaves this machine.</p>
            <ul id="accounts">
            \(accounts.joined(separator: "\n"))
            </ul>
            <form id="new-account">
            <h2>Add new account</h2>
            <p><label>Email <input name="email" type="email" required></label></p>
            <p><label>Display name <input name="displayName"></label></p>
            <p><label>Screen name <input name="screenName"></label></p>
            <p><label>Profile photo URL <input name="photoUrl" type="url"></label></p>
            <p><button type="submit" id="sign-in">Sign in with \(name)</button></p>
            </form>
            <p id="error" role="alert"></p>
            <script src="/emulator/auth/handler.js"></script>
            </body></html>
            """
        return Self.page(html, type: "text/html; charset=utf-8", framed: false)
    }

    /// An account of the list: a button that carries the account's fake claims.
    private static func account(_ identity: IdentityRecord) -> String {
        let e = DevIdPPages.escape
        var claims: EJSONDocument = ["sub": .string(identity.externalId), "iss": "", "aud": "", "exp": 0, "iat": 0, "email_verified": true]
        for (key, source) in [("email", "email"), ("name", "name"), ("picture", "picture_url")] {
            if let value = identity.data[source]?.stringValue { claims[key] = .string(value) }
        }
        let json = String(decoding: EJSON.document(claims).encoded(.relaxed), as: UTF8.self)
        let label = [identity.data["name"]?.stringValue ?? "(No display name)", identity.data["email"]?.stringValue ?? identity.externalId]
        return
            "<li><button type=\"button\" class=\"js-reuse-account\" data-id-token=\"\(e(json))\">\(e(label[0])) &lt;\(e(label[1]))&gt;</button></li>"
    }

    /// The SDK's hidden iframe.
    @Sendable func iframe(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try checkHost(request)
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Auth Emulator Helper Iframe</title></head>
            <body><script src="/emulator/auth/iframe.js"></script></body></html>
            """
        return Self.page(html, type: "text/html; charset=utf-8", framed: true)
    }

    @Sendable func handlerScript(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Self.page(Self.handlerJavaScript, type: "text/javascript; charset=utf-8", framed: false)
    }

    @Sendable func iframeScript(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Self.page(Self.iframeJavaScript, type: "text/javascript; charset=utf-8", framed: true)
    }

    /// The dev API's rule for the Host: while the server listens on loopback, only a request
    /// addressed to a loopback host (a DNS name rebound to 127.0.0.1 would read the page).
    private func checkHost(_ request: Request) throws {
        if ServerConfiguration.isLoopback(host: origin.listenHost), let authority = request.head.authority,
            !ServerConfiguration.isLoopback(host: authority)
        {
            throw ServiceError(.forbidden, "the emulator's pages answer only requests addressed to a loopback address")
        }
    }

    /// A page or script: never cached; the picker never framed, the iframe framed by any app
    /// page (as the SDK embeds it); scripts from this origin only (and Google's gapi, which the
    /// iframe loads as the emulator's does).
    private static func page(_ text: String, type: String, framed: Bool) -> Response {
        let policy =
            framed
            ? "default-src 'none'; script-src 'self' https://apis.google.com; connect-src 'self'; frame-src https://apis.google.com"
            : "default-src 'none'; script-src 'self'; img-src http: https: data:; form-action 'none'; frame-ancestors 'none'"
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store", .contentSecurityPolicy: policy]
        if !framed { headers[HTTPField.Name("X-Frame-Options")!] = "DENY" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
