#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A person in a real browser, for the tests: headless Chromium opens the URL it is given
(authsh calls it as $BROWSER), fills the dev identity provider's authorize page, approves,
and waits for authsh's loopback page. Driven through the Chrome DevTools Protocol.

Environment: SIGNIN_EMAIL, SIGNIN_NAME (the identity to create), SIGNIN_SCREENSHOT (a PNG of
the authorize page, optional), SIGNIN_LOG (where to write what happened; default stderr).
"""
import json, os, sys

from cdp import Browser

log = open(os.environ["SIGNIN_LOG"], "a") if os.environ.get("SIGNIN_LOG") else sys.stderr


def say(*parts):
    print(*parts, file=log, flush=True)


def main():
    url = sys.argv[1]
    try:
        with Browser("800,900") as b:
            b.call("Page.enable")
            b.call("Page.navigate", url=url)
            b.wait_for("document.querySelector('#approve') !== null", "the authorize page")
            say("authorize page:", b.evaluate("location.origin + location.pathname"))
            email = os.environ.get("SIGNIN_EMAIL", "grace@example.com")
            name = os.environ.get("SIGNIN_NAME", "Grace Hopper")
            b.evaluate(f"document.querySelector('#email').value = {json.dumps(email)};"
                       f"document.querySelector('#name').value = {json.dumps(name)}; true")
            if os.environ.get("SIGNIN_SCREENSHOT"):
                b.screenshot(os.environ["SIGNIN_SCREENSHOT"])
            b.evaluate("document.querySelector('#approve').click(); true")
            b.wait_for("document.querySelector('#message') !== null && location.pathname === '/callback'", "authsh's loopback page")
            say("loopback page:", b.evaluate("document.querySelector('#message').textContent"))
            return 0
    except Exception as e:
        say("failed:", e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
