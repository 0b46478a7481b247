#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A web app of another origin in a real browser, for the tests: headless Chromium opens a page
served here (the web app's origin) and calls authsh's client API with `fetch` as realm-web
does: an anonymous login, a refresh, a function call, an error answer read by the page, and
the OAuth link request that reads `X-Baas-Location` (mode "cors", credentials "include").
Then the same page from an origin authsh does not allow tries the login, which the browser
must refuse to hand to the page. Reports what the page saw as JSON on stdout.

Usage: cors-browser.py AUTHSH_ORIGIN GO_FILE
It serves the page on a port of its own choosing and prints "listening PORT", then waits for
GO_FILE to exist (the test has allowed http://localhost:PORT by then) before it browses. The
allowed page is http://localhost:PORT; the other is http://127.0.0.1:PORT.
"""
import sys

import webapp

# realm-web 2's requests: JSON bodies with Content-Type, Accept on every JSON call, the
# access or refresh token as a bearer token (Fetcher.ts, Authenticator.ts).
FLOW = """
(async () => {
  const base = %(authsh)s + "/api/client/v2.0";
  const out = {};
  const accept = {"Accept": "application/json"};
  const json = {"Content-Type": "application/json", "Accept": "application/json"};
  let r = await fetch(base + "/app/local/auth/providers/anon-user/login", {method: "POST", headers: json, body: "{}"});
  const login = await r.json();
  out.login = r.status;
  r = await fetch(base + "/auth/session", {method: "POST", headers: {...accept, "Authorization": "Bearer " + login.refresh_token}});
  const session = await r.json();
  out.refresh = r.status;
  const call = (name) => fetch(base + "/app/local/functions/call", {method: "POST",
    headers: {...json, "Authorization": "Bearer " + session.access_token}, body: JSON.stringify({name, arguments: ["Ada"]})});
  r = await call("greet");
  out.call = [r.status, await r.json()];
  r = await call("noSuchFunction");
  out.error = [r.status, (await r.json()).error_code, r.headers.get("Content-Type")];
  const link = base + "/app/local/auth/providers/oauth2-github/login?link=true&providerRedirectHeader=true&state=s1&redirect="
    + encodeURIComponent(location.origin + "/cb");
  r = await fetch(link, {method: "GET", headers: {"Authorization": "Bearer " + session.access_token}, mode: "cors", credentials: "include"});
  out.link = [r.status, r.headers.get("X-Baas-Location")];
  return out;
})()
"""

REFUSED = """
fetch(%(authsh)s + "/api/client/v2.0/app/local/auth/providers/anon-user/login",
      {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"})
  .then(r => ({status: r.status}), e => ({refused: String(e)}))
"""


def main():
    report = {"console": []}

    def note(message):
        if message.get("method") == "Log.entryAdded":
            entry = message["params"]["entry"]
            report["console"].append({"level": entry["level"], "text": entry.get("text", "")[:300]})

    webapp.two_origins(sys.argv[1], sys.argv[2], FLOW, REFUSED, on_event=note, report=report)


if __name__ == "__main__":
    main()
