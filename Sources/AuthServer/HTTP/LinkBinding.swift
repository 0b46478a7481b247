// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird

/// Binds a web redirect link flow (`link=true` without PKCE) to the browser that started it
/// (RFC 6749 section 10.12, RFC 9700 section 4.7.1). Without it, whoever brings the IdP's
/// answer to the callback finishes the link: an attacker starts a link with their own token,
/// sends the IdP's sign-in page to a victim, and the victim's IdP identity lands on the
/// attacker's account, so the victim's later sign-ins open it.
///
/// The start (``OAuthSignIn/newBinding()``) answers with a cookie of its own (one per flow, named after the state's digest,
/// HttpOnly, 10 minutes; over https `__Host-` prefixed, so that no other host of the domain,
/// nor a plain http page, can plant one; over http for the callback's path only) and the flow
/// keeps the digest of its value. realm-web starts a link with `credentials: "include"`, so its browser keeps the
/// cookie and sends it when the IdP sends it back. The callback of a link flow finishes only
/// with that cookie, when a browser brings it: a request a browser sends says so (its user
/// agent is `Mozilla/...`, and it sends `Sec-Fetch-*`), and a victim is always sent back by a
/// browser. A client that follows the redirects itself (a script holding the user's own token)
/// is no victim, and is not asked for a cookie it never had.
///
/// Over https, and over plain http on loopback (dev mode: browsers treat a loopback origin as a
/// secure context and keep a `Secure` cookie from it), the cookie is `SameSite=None; Secure`:
/// kept from realm-web's cross-site `fetch` of a page on another site (a page on
/// `http://localhost:3000`, the server on `http://127.0.0.1:9090`) and sent on the IdP's
/// redirect and Apple's form post alike. Over plain http elsewhere (where it may not be
/// `Secure`) it is `SameSite=Lax`: a page of the same site only, and no form post.
struct LinkBinding {
    /// The cookie's name for a flow's `state`, over https or not.
    static func cookieName(state: String, https: Bool) -> String {
        (https ? "__Host-" : "") + "authsh_link_" + Hex.encode(Secrets.digest(state)).prefix(16)
    }

    /// The `Set-Cookie` of the start's answer, on the channel `verdict` names.
    static func setCookie(state: String, value: String, verdict: AdminChannel.Verdict) -> String {
        "\(cookieName(state: state, https: verdict.isHTTPS))=\(value); Max-Age=\(OAuthFlows.flowLifetime); HttpOnly; "
            + attributes(verdict)
    }

    /// The `Set-Cookie`s that clear it, whichever it was (the callback's answer).
    static func clearCookies(state: String, verdict: AdminChannel.Verdict) -> [String] {
        [
            "\(cookieName(state: state, https: true))=; Max-Age=0; HttpOnly; " + attributes(.https(origin: nil)),
            "\(cookieName(state: state, https: false))=; Max-Age=0; HttpOnly; " + attributes(verdict.isHTTPS ? .unsafe : verdict),
        ]
    }

    private static func attributes(_ verdict: AdminChannel.Verdict) -> String {
        switch verdict {
        case .https: "Path=/; Secure; SameSite=None"
        case .loopback: "Path=\(Routes.base)/auth/callback; Secure; SameSite=None"
        case .unsafe: "Path=\(Routes.base)/auth/callback; SameSite=Lax"
        }
    }

    /// Whether the callback `request` may finish a link flow whose binding digest is `digest`.
    static func accepts(_ request: Request, state: String, digest: String?) -> Bool {
        guard let digest else { return true }
        let names = [cookieName(state: state, https: true), cookieName(state: state, https: false)]
        let cookies = request.headers[values: .cookie].flatMap { $0.split(separator: ";") }
        for cookie in cookies {
            let pair = cookie.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, names.contains(pair[0]),
                Secrets.constantTimeEqual(Array(Hex.encode(Secrets.digest(pair[1])).utf8), Array(digest.utf8))
            {
                return true
            }
        }
        return !cameFromABrowser(request)
    }

    /// A browser says it is one: every current browser sends `Sec-Fetch-*` on a navigation and a
    /// `Mozilla/` user agent; a page cannot make it leave them out.
    static func cameFromABrowser(_ request: Request) -> Bool {
        if request.headers[HTTPField.Name("Sec-Fetch-Mode")!] != nil || request.headers[.secFetchSite] != nil { return true }
        return request.headers[.userAgent]?.hasPrefix("Mozilla/") ?? false
    }
}
