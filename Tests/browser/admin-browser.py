#!/usr/bin/env python3
"""An operator in a real browser, for the tests: headless Chromium opens ORIGIN/admin, signs in
with the admin key, searches for EMAIL, opens that user, disables them (answering the
confirmation), and reports what it saw as JSON on stdout. Every console message and every
error of the page (a Content-Security-Policy violation included) is reported too. Driven
through the Chrome DevTools Protocol.

Usage: admin-browser.py ORIGIN KEY EMAIL [SCREENSHOT_DIR]
"""
import base64, json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request

import websocket  # websocket-client


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    origin, key, email = sys.argv[1], sys.argv[2], sys.argv[3]
    shots = sys.argv[4] if len(sys.argv) > 4 else None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        print(json.dumps({"error": "no chromium on the PATH"}))
        return 2
    port = free_port()
    profile = tempfile.mkdtemp(prefix="authsh-chromium-")
    browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--disable-dev-shm-usage", f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
                                "--window-size=420,900", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    report = {"steps": [], "console": []}
    try:
        target = None
        for _ in range(200):
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
                target = next(t for t in targets if t["type"] == "page")
                break
            except Exception:
                time.sleep(0.05)
        if target is None:
            report["error"] = "chromium did not start"
            return 1
        ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30)
        counter = [0]

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

        def call(method, **params):
            counter[0] += 1
            ws.send(json.dumps({"id": counter[0], "method": method, "params": params}))
            while True:
                message = json.loads(ws.recv())
                if message.get("id") == counter[0]:
                    if "error" in message:
                        raise RuntimeError(f"{method}: {message['error']}")
                    return message.get("result", {})
                note(message)

        def evaluate(expression):
            return call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

        def wait_for(expression, what, seconds=20):
            deadline = time.time() + seconds
            while time.time() < deadline:
                if evaluate(f"document.readyState === 'complete' && ({expression})"):
                    return
                time.sleep(0.05)
            raise RuntimeError(f"timed out waiting for {what}; page: {evaluate('location.href')}")

        def screenshot(name):
            if shots:
                data = call("Page.captureScreenshot", format="png")["data"]
                with open(os.path.join(shots, name), "wb") as f:
                    f.write(base64.b64decode(data))

        def step(name):
            report["steps"].append({"step": name, "url": evaluate("location.pathname + location.search"),
                                    "title": evaluate("document.title")})

        call("Page.enable")
        call("Runtime.enable")
        call("Log.enable")
        # The page itself runs no script; these only drive it as a person would.
        call("Page.navigate", url=origin + "/admin")
        wait_for("document.querySelector('#key') !== null", "the sign-in page")
        step("sign-in page")
        screenshot("admin-sign-in.png")
        evaluate(f"document.querySelector('#key').value = {json.dumps(key)}; document.querySelector('#sign-in').click()")
        wait_for("document.querySelector('#users') !== null", "the users page")
        step("users")
        evaluate(f"document.querySelector('#email').value = {json.dumps(email)}; document.querySelector('#search').click()")
        wait_for(f"location.search.includes('email=')", "the search")
        rows = evaluate("Array.from(document.querySelectorAll('#users tbody tr')).map(r => r.innerText)")
        report["searchRows"] = rows
        step("search")
        screenshot("admin-users.png")
        evaluate("document.querySelector('#users tbody a').click()")
        wait_for("document.querySelector('#state') !== null", "the user page")
        report["stateBefore"] = evaluate("document.querySelector('#state').innerText")
        step("user")
        screenshot("admin-user.png")
        evaluate("document.querySelector('#disable').click()")
        wait_for("document.querySelector('#confirm') !== null", "the confirmation")
        report["question"] = evaluate("document.querySelector('h1').innerText")
        step("confirm")
        evaluate("document.querySelector('#confirm').click()")
        wait_for("document.querySelector('#enable') !== null", "the user page, disabled")
        report["stateAfter"] = evaluate("document.querySelector('#state').innerText")
        step("disabled")
        # The style sheet applied (the CSP let it in): the header has its border.
        report["styled"] = evaluate("getComputedStyle(document.querySelector('header')).borderBottomStyle") == "solid"
        # A little later, any late console message has arrived.
        time.sleep(0.3)
        call("Runtime.evaluate", expression="1")
        return 0
    except Exception as e:  # reported, not raised: the test reads the report
        report["error"] = str(e)
        return 1
    finally:
        print(json.dumps(report))
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
