#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A Firebase web app of another origin in a real browser, for the tests: headless Chromium
opens a page served here and calls authsh's Firebase API with `fetch` as the Firebase JavaScript
SDK does (packages/auth/src/api/index.ts: JSON bodies, the API key in `?key=`, X-Client-Version;
the token refresh form-encoded): an email/password sign-up, a lookup, a refresh, and an error
answer read by the page. Then the same page from an origin authsh does not allow tries the
sign-up, which the browser must refuse to hand to the page. Reports what the page saw as JSON.

Usage: firebase-browser.py AUTHSH_ORIGIN GO_FILE (as cors-browser.py)
"""
import sys

import webapp

FLOW = """
(async () => {
  const key = "?key=web-api-key";
  const accounts = %(authsh)s + "/identitytoolkit.googleapis.com/v1/accounts:";
  const headers = {"Content-Type": "application/json", "X-Client-Version": "Chrome/JsCore/12.0.0/FirebaseCore-web"};
  const out = {};
  let r = await fetch(accounts + "signUp" + key, {method: "POST", headers,
    body: JSON.stringify({email: "web@example.com", password: "password1", returnSecureToken: true})});
  const up = await r.json();
  out.signUp = [r.status, up.localId, up.email];
  r = await fetch(accounts + "lookup" + key, {method: "POST", headers, body: JSON.stringify({idToken: up.idToken})});
  out.lookup = [r.status, (await r.json()).users[0].localId];
  r = await fetch(%(authsh)s + "/securetoken.googleapis.com/v1/token" + key, {method: "POST",
    headers: {"Content-Type": "application/x-www-form-urlencoded", "X-Client-Version": headers["X-Client-Version"]},
    body: "grant_type=refresh_token&refresh_token=" + encodeURIComponent(up.refreshToken)});
  out.refresh = [r.status, (await r.json()).user_id];
  r = await fetch(accounts + "signUp" + key, {method: "POST", headers,
    body: JSON.stringify({email: "web@example.com", password: "password1"})});
  out.error = [r.status, (await r.json()).error.message];
  return out;
})()
"""

REFUSED = """
fetch(%(authsh)s + "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=web-api-key",
      {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"})
  .then(r => ({status: r.status}), e => ({refused: String(e)}))
"""


def main():
    webapp.two_origins(sys.argv[1], sys.argv[2], FLOW, REFUSED)


if __name__ == "__main__":
    main()
