// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The dev identity provider's HTML: the authorize page (pick an identity already used, or
/// make one; approve or deny) and the device verification page. Plain forms that work in
/// any browser, with no script.
enum DevIdPPages {
    static func escape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }

    private static func page(_ title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font: 16px/1.5 system-ui, sans-serif; max-width: 30rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
        h1 { font-size: 1.4rem; } .note { color: #59636e; font-size: .9rem; }
        fieldset { border: 1px solid #d1d9e0; border-radius: 6px; margin: 1rem 0; padding: .5rem 1rem 1rem; }
        label { display: block; margin: .5rem 0; } input[type=text], input[type=email] { width: 100%; padding: .4rem; box-sizing: border-box; }
        button { font: inherit; padding: .4rem 1rem; margin: .3rem .3rem .3rem 0; border-radius: 6px; border: 1px solid #d1d9e0; background: #f6f8fa; cursor: pointer; }
        button.primary { background: #1f883d; color: white; border-color: #1f883d; }
        </style></head><body>
        \(body)
        </body></html>
        """
    }

    /// The authorize page of `flavor` for one pending request (`token` is its form token).
    static func authorize(
        flavor: DevIdentityProvider.Flavor, token: String, grant: DevIdentityProvider.Grant,
        identities: [DevIdentityProvider.Identity], action: String
    ) -> String {
        let who =
            switch flavor {
            case .github: "GitHub (dev)";
            case .facebook: "Facebook (dev)";
            case .oidc: "OpenID Connect (dev)"
            }
        var known = ""
        if !identities.isEmpty {
            known = "<fieldset><legend>Sign in as</legend>\n"
            for i in identities {
                known += """
                    <button type="submit" name="identity" value="\(escape(i.email))">\(escape(i.name)) &lt;\(escape(i.email))&gt;\(i.verified ? "" : " (unverified)")</button>\n
                    """
            }
            known += "</fieldset>\n"
        }
        return page(
            "Sign in with \(who)",
            """
            <h1>Sign in with \(escape(who))</h1>
            <p>An app (client <code>\(escape(grant.clientId))</code>) asks to know who you are\(grant.scope.isEmpty ? "" : ", with the scopes <code>\(escape(grant.scope))</code>").</p>
            <p class="note">This is authsh's dev identity provider: no real account is involved.</p>
            <form method="post" action="\(escape(action))">
            <input type="hidden" name="request" value="\(escape(token))">
            \(known)<fieldset><legend>\(identities.isEmpty ? "Sign in as a new identity" : "Or a new identity")</legend>
            <label>Email <input type="email" name="email" id="email" autocomplete="off"></label>
            <label>Name <input type="text" name="name" id="name" autocomplete="off"></label>
            <label><input type="checkbox" name="verified" id="verified" value="true" checked> Email verified</label>
            <button type="submit" class="primary" name="decision" value="approve" id="approve">Approve</button>
            </fieldset>
            <button type="submit" name="decision" value="deny" id="deny">Deny</button>
            </form>
            """)
    }

    /// The device verification page: the user code and an identity.
    static func device(userCode: String?, message: String?) -> String {
        page(
            "Connect a device",
            """
            <h1>Connect a device (dev)</h1>
            \(message.map { "<p id=\"message\">\(escape($0))</p>" } ?? "")
            <form method="post" action="/dev/idp/device">
            <label>Code shown on the device <input type="text" name="user_code" id="user_code" value="\(escape(userCode ?? ""))"></label>
            <label>Email <input type="email" name="email" id="email"></label>
            <label>Name <input type="text" name="name" id="name"></label>
            <label><input type="checkbox" name="verified" value="true" checked> Email verified</label>
            <button type="submit" class="primary" name="decision" value="approve" id="approve">Approve</button>
            <button type="submit" name="decision" value="deny" id="deny">Deny</button>
            </form>
            """)
    }

    /// A page with one sentence (a result or an error).
    static func message(_ title: String, _ text: String) -> String {
        page(title, "<h1>\(escape(title))</h1>\n<p id=\"message\">\(escape(text))</p>")
    }
}
