// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The dev server's example passkey page, `GET /dev/passkeys/{app}`: a sign-up and a sign-in
/// with `navigator.credentials`, against the client API of the same origin, in a page small
/// enough to read and copy into a web app. Open it as `http://localhost:PORT/dev/passkeys/local`
/// (the dev server's passkeys are for `localhost`). Dev mode only.
///
/// Its script is a file of its own, so that the page's Content-Security-Policy allows no
/// inline script.
struct DevPasskeyPage {
    let apps: [String: AppRuntime]

    func addRoutes(to router: Router<AuthRequestContext>) {
        router.get("dev/passkeys/passkeys.js", use: script)
        router.get("dev/passkeys/:app", use: page)
    }

    @Sendable func page(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try AppMiddleware.app(context.parameters.get("app") ?? "", in: apps)
        let id = DevIdPPages.escape(app.id)
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Passkeys: \(id)</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"></head>
            <body data-app="\(id)">
            <h1>Passkeys for app \(id)</h1>
            <p>A sign-up makes an account (an anonymous login) and registers a passkey on it; a sign-in
            asks for any passkey of this app, with no user name.</p>
            <p><label>Passkey name <input id="name" value="browser"></label>
            <button id="signup">Sign up with a passkey</button>
            <button id="signin">Sign in with a passkey</button></p>
            <pre id="result"></pre>
            <script src="/dev/passkeys/passkeys.js"></script>
            </body></html>
            """
        return Self.response(html, type: "text/html; charset=utf-8")
    }

    @Sendable func script(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Self.response(Self.javascript, type: "text/javascript; charset=utf-8")
    }

    private static func response(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-store", HTTPField.Name("X-Frame-Options")!: "DENY",
                .contentSecurityPolicy: "default-src 'none'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The page's script: `authsh.signUp(name)` and `authsh.signIn()` resolve to
    /// `{status, body}` of the last request (what the buttons show, and what tests read).
    static let javascript = #"""
        "use strict";
        const app = document.body.dataset.app;
        const base = "/api/client/v2.0";
        async function call(method, path, body, token) {
          const headers = { "Content-Type": "application/json" };
          if (token) headers.Authorization = "Bearer " + token;
          const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
          return { status: response.status, body: await response.json() };
        }
        function show(result) {
          document.getElementById("result").textContent = JSON.stringify(result, null, 2);
          return result;
        }
        async function signUp(name) {
          const login = await call("POST", `/app/${app}/auth/providers/anon-user/login`, {});
          if (login.status !== 200) return show(login);
          const token = login.body.access_token;
          const options = await call("POST", "/auth/passkeys/options", undefined, token);
          if (options.status !== 200) return show(options);
          const credential = await navigator.credentials.create({
            publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.body.publicKey) });
          const added = await call("POST", "/auth/passkeys", { credential: credential.toJSON(), name }, token);
          added.body.user_id = login.body.user_id;
          return show(added);
        }
        async function signIn() {
          const options = await call("POST", `/app/${app}/auth/providers/passkey/options`);
          if (options.status !== 200) return show(options);
          const credential = await navigator.credentials.get({
            publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body.publicKey) });
          return show(await call("POST", `/app/${app}/auth/providers/passkey/login`, { credential: credential.toJSON() }));
        }
        function report(error) { return show({ error: String(error) }); }
        window.authsh = { signUp, signIn };
        document.getElementById("signup").addEventListener("click", () =>
          signUp(document.getElementById("name").value).catch(report));
        document.getElementById("signin").addEventListener("click", () => signIn().catch(report));
        """#
}
