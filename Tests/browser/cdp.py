# SPDX-License-Identifier: Apache-2.0
"""Headless Chromium driven through the Chrome DevTools Protocol, for the browser tests: start it,
call protocol methods, evaluate JavaScript in the page, wait for a condition, take screenshots.
Events that arrive while waiting for an answer go to `on_event` (console messages, errors)."""
import base64, json, os, shutil, subprocess, tempfile, time, urllib.request

import websocket  # websocket-client


class Target:
    """A page driven through its DevTools connection: protocol calls, JavaScript, waits."""

    def __init__(self, ws, on_event=lambda message: None):
        self.ws = ws
        self.on_event = on_event
        self.counter = 0

    def call(self, method, **params):
        self.counter += 1
        self.ws.send(json.dumps({"id": self.counter, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.counter:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.on_event(message)

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

    def wait_for(self, expression, what, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.evaluate(f"document.readyState === 'complete' && ({expression})"):
                return
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {what}; page: {self.evaluate('location.href')}")

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def evaluate_async(self, expression, user_gesture=False):
        """The value of `expression`, a promise awaited in the page (a rejection is reported
        as {"rejected": message}); `user_gesture` runs it as if the person had clicked."""
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True,
                           userGesture=user_gesture)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            return {"rejected": details.get("exception", {}).get("description", details.get("text", ""))}
        return result.get("result", {}).get("value")


class Browser(Target):
    """`with Browser(window) as b:` a headless Chromium with one page; closed on exit."""

    def __init__(self, window="800,900", on_event=lambda message: None, prefs=None):
        """`prefs`: the profile's preferences (Default/Preferences), written before Chromium starts."""
        self.window = window
        self.on_event = on_event
        self.prefs = prefs
        self.counter = 0

    def __enter__(self):
        chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if not chromium:
            raise RuntimeError("no chromium on the PATH")
        self.profile = tempfile.mkdtemp(prefix="authsh-chromium-")
        if self.prefs is not None:
            os.makedirs(f"{self.profile}/Default")
            with open(f"{self.profile}/Default/Preferences", "w") as f:
                json.dump(self.prefs, f)
        self.process = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                         "--disable-dev-shm-usage", "--remote-debugging-port=0",
                                         f"--user-data-dir={self.profile}", f"--window-size={self.window}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Chromium picks its own port and writes it to DevToolsActivePort in the profile (a port
        # picked here and closed could be taken by another process before Chromium binds it).
        target = None
        for _ in range(200):
            try:
                with open(f"{self.profile}/DevToolsActivePort") as f:
                    port = int(f.readline())
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
                target = next(t for t in targets if t["type"] == "page")
                break
            except Exception:
                time.sleep(0.05)
        if target is None:
            self.__exit__(None, None, None)
            raise RuntimeError("chromium did not start")
        self.port = port
        self.ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30)
        return self

    def attach(self, matches, what, seconds=20):
        """Another page of this browser (a popup) whose URL `matches`: a `Target` to drive it."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            for t in json.load(urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json")):
                if t["type"] == "page" and matches(t.get("url", "")) and "webSocketDebuggerUrl" in t:
                    return Target(websocket.create_connection(t["webSocketDebuggerUrl"], timeout=30), self.on_event)
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {what}")

    def __exit__(self, *_):
        self.process.terminate()
        try:
            self.process.wait(5)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
