#!/usr/bin/env python3
"""A person in a real browser, for the tests: headless Chromium opens the URL it is given
(authsh calls it as $BROWSER), fills the dev identity provider's authorize page, approves,
and waits for authsh's loopback page. Driven through the Chrome DevTools Protocol.

Environment: SIGNIN_EMAIL, SIGNIN_NAME (the identity to create), SIGNIN_SCREENSHOT (a PNG of
the authorize page, optional), SIGNIN_LOG (where to write what happened; default stderr).
"""
import base64, json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request

import websocket  # websocket-client

log = open(os.environ["SIGNIN_LOG"], "a") if os.environ.get("SIGNIN_LOG") else sys.stderr


def say(*parts):
    print(*parts, file=log, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    url = sys.argv[1]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        say("no chromium on the PATH")
        return 2
    port = free_port()
    profile = tempfile.mkdtemp(prefix="authsh-chromium-")
    browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--disable-dev-shm-usage", f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
                                "--window-size=800,900", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
            say("chromium did not start")
            return 1
        ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30)
        counter = [0]

        def call(method, **params):
            counter[0] += 1
            ws.send(json.dumps({"id": counter[0], "method": method, "params": params}))
            while True:
                message = json.loads(ws.recv())
                if message.get("id") == counter[0]:
                    if "error" in message:
                        raise RuntimeError(f"{method}: {message['error']}")
                    return message.get("result", {})

        def evaluate(expression):
            return call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

        def wait_for(expression, what, seconds=20):
            deadline = time.time() + seconds
            while time.time() < deadline:
                if evaluate(expression):
                    return
                time.sleep(0.05)
            raise RuntimeError(f"timed out waiting for {what}; page: {evaluate('location.href')}")

        call("Page.enable")
        call("Page.navigate", url=url)
        wait_for("document.querySelector('#approve') !== null", "the authorize page")
        say("authorize page:", evaluate("location.origin + location.pathname"))
        email = os.environ.get("SIGNIN_EMAIL", "grace@example.com")
        name = os.environ.get("SIGNIN_NAME", "Grace Hopper")
        evaluate(f"document.querySelector('#email').value = {json.dumps(email)};"
                 f"document.querySelector('#name').value = {json.dumps(name)}; true")
        if os.environ.get("SIGNIN_SCREENSHOT"):
            shot = call("Page.captureScreenshot", format="png")
            with open(os.environ["SIGNIN_SCREENSHOT"], "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        evaluate("document.querySelector('#approve').click(); true")
        wait_for("document.querySelector('#message') !== null && location.pathname === '/callback'", "authsh's loopback page")
        say("loopback page:", evaluate("document.querySelector('#message').textContent"))
        return 0
    except Exception as e:
        say("failed:", e)
        return 1
    finally:
        browser.terminate()
        try:
            browser.wait(5)
        except Exception:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
