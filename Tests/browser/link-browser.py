#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A web app on another site than authsh links an OAuth identity in a real browser, as
realm-web's `linkCredentials` does with a redirect: headless Chromium opens a page served here
on http://localhost:PORT while authsh's dev server is on http://127.0.0.1:PORT2 (another site),
logs in anonymously, asks for the link with `fetch` (the access token as a bearer token,
`providerRedirectHeader=true`, mode "cors", credentials "include": the link binding's cookie
arrives on this cross-site answer), goes to the `X-Baas-Location`, approves on the dev identity
provider's page, and reads the fragment authsh sends it back with. Reports it as JSON.

The browser allows third-party cookies (as Chrome does by default for most people); one that
blocks them keeps no cookie from another site's answer, whatever its attributes.

Usage: link-browser.py AUTHSH_ORIGIN PROVIDER GO_FILE
It serves the page on a port of its own choosing and prints "listening PORT", then waits for
GO_FILE to exist (the test has allowed http://localhost:PORT by then) before it browses.
"""
import json, sys

import webapp
from cdp import Browser


START = """
(async () => {
  const base = %(authsh)s + "/api/client/v2.0";
  const json = {"Content-Type": "application/json", "Accept": "application/json"};
  let r = await fetch(base + "/app/local/auth/providers/anon-user/login", {method: "POST", headers: json, body: "{}"});
  const login = await r.json();
  const link = base + "/app/local/auth/providers/" + %(provider)s + "/login?link=true&providerRedirectHeader=true&state=s1&redirect="
    + encodeURIComponent(location.origin + "/cb");
  r = await fetch(link, {method: "GET", headers: {"Authorization": "Bearer " + login.access_token}, mode: "cors", credentials: "include"});
  return {login: login.user_id, status: r.status, location: r.headers.get("X-Baas-Location")};
})()
"""


def main():
    authsh, provider, go = sys.argv[1], sys.argv[2], sys.argv[3]
    server, port = webapp.serve(go)
    report = {}
    try:
        with Browser(prefs={"profile": {"cookie_controls_mode": 0}}) as b:
            b.call("Page.enable")
            b.call("Page.navigate", url=f"http://localhost:{port}/")
            b.wait_for("document.title === 'web app'", "the page")
            report["origin"] = b.evaluate("location.origin")
            report["start"] = b.evaluate_async(START % {"authsh": json.dumps(authsh), "provider": json.dumps(provider)})
            b.call("Page.navigate", url=report["start"]["location"])
            b.wait_for("document.querySelector('#approve') !== null", "the identity provider's page")
            b.evaluate("document.querySelector('#email').value = 'linked@example.com';"
                       "document.querySelector('#name').value = 'Linked Person'; true")
            b.evaluate("document.querySelector('#approve').click(); true")
            b.wait_for(f"location.port === '{port}' && location.pathname === '/cb'", "the page's redirect", seconds=30)
            report["fragment"] = b.evaluate("decodeURIComponent(location.hash)")
    except Exception as error:
        report["error"] = str(error)
    finally:
        server.shutdown()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
