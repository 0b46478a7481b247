#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An operator in a real browser, for the tests: headless Chromium opens ORIGIN/admin, signs in
with the admin key, searches for EMAIL, opens that user, disables them (answering the
confirmation), and reports what it saw as JSON on stdout. Every console message and every
error of the page (a Content-Security-Policy violation included) is reported too. Driven
through the Chrome DevTools Protocol.

Usage: admin-browser.py ORIGIN KEY EMAIL [SCREENSHOT_DIR]
"""
import json, os, sys, time

from cdp import Browser


def main():
    origin, key, email = sys.argv[1], sys.argv[2], sys.argv[3]
    shots = sys.argv[4] if len(sys.argv) > 4 else None
    report = {"steps": [], "console": []}

    def note(message):
        method = message.get("method")
        if method == "Runtime.consoleAPICalled":
            report["console"].append({"type": message["params"]["type"],
                                      "text": " ".join(str(a.get("value", a.get("description", ""))) for a in message["params"]["args"])})
        elif method == "Log.entryAdded":
            entry = message["params"]["entry"]
            report["console"].append({"type": entry["level"], "text": entry.get("text", ""), "source": entry.get("source")})
        elif method == "Runtime.exceptionThrown":
            report["console"].append({"type": "exception", "text": json.dumps(message["params"]["exceptionDetails"])[:300]})

    try:
        with Browser("420,900", on_event=note) as b:
            def screenshot(name):
                if shots:
                    b.screenshot(os.path.join(shots, name))

            def step(name):
                report["steps"].append({"step": name, "url": b.evaluate("location.pathname + location.search"),
                                        "title": b.evaluate("document.title")})

            b.call("Page.enable")
            b.call("Runtime.enable")
            b.call("Log.enable")
            # The page itself runs no script; these only drive it as a person would.
            b.call("Page.navigate", url=origin + "/admin")
            b.wait_for("document.querySelector('#key') !== null", "the sign-in page")
            step("sign-in page")
            screenshot("admin-sign-in.png")
            b.evaluate(f"document.querySelector('#key').value = {json.dumps(key)}; document.querySelector('#sign-in').click()")
            b.wait_for("document.querySelector('#users') !== null", "the users page")
            step("users")
            b.evaluate(f"document.querySelector('#email').value = {json.dumps(email)}; document.querySelector('#search').click()")
            b.wait_for("location.search.includes('email=')", "the search")
            report["searchRows"] = b.evaluate("Array.from(document.querySelectorAll('#users tbody tr')).map(r => r.innerText)")
            step("search")
            screenshot("admin-users.png")
            b.evaluate("document.querySelector('#users tbody a').click()")
            # dd#state: the users page has a select#state too, still there right after the click.
            b.wait_for("document.querySelector('dd#state') !== null", "the user page")
            report["stateBefore"] = b.evaluate("document.querySelector('dd#state').innerText")
            step("user")
            screenshot("admin-user.png")
            b.evaluate("document.querySelector('#disable').click()")
            b.wait_for("document.querySelector('#confirm') !== null", "the confirmation")
            report["question"] = b.evaluate("document.querySelector('h1').innerText")
            step("confirm")
            b.evaluate("document.querySelector('#confirm').click()")
            b.wait_for("document.querySelector('#enable') !== null", "the user page, disabled")
            report["stateAfter"] = b.evaluate("document.querySelector('dd#state').innerText")
            step("disabled")
            # The style sheet applied (the CSP let it in): the header has its border.
            report["styled"] = b.evaluate("getComputedStyle(document.querySelector('header')).borderBottomStyle") == "solid"
            # A little later, any late console message has arrived.
            time.sleep(0.3)
            b.call("Runtime.evaluate", expression="1")
        return 0
    except Exception as e:  # reported, not raised: the test reads the report
        report["error"] = str(e)
        return 1
    finally:
        print(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
