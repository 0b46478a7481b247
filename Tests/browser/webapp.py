# SPDX-License-Identifier: Apache-2.0
"""The web app of the browser tests: a minimal page (title "web app") served on 127.0.0.1 at a
port of its own choosing, so that no port picked and freed elsewhere is taken meanwhile. It
prints "listening PORT" for the test, which then allows the page's origin in the app and
creates GO_FILE; `serve` returns once it exists."""
import http.server, json, os, threading, time

PAGE = b"<!doctype html><html><head><title>web app</title></head><body>web app</body></html>"


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *_):
        pass


def serve(go):
    """Serves the page; its server (shut it down when done) and port, once GO_FILE exists."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"listening {port}", flush=True)
    deadline = time.time() + 60
    while not os.path.exists(go) and time.time() < deadline:
        time.sleep(0.05)
    return server, port


def two_origins(authsh, go, flow, refused, on_event=lambda message: None, report=None):
    """Serves the page, opens it at http://localhost:PORT (the allowed origin) and runs `flow`
    there, then at http://127.0.0.1:PORT (another origin) and runs `refused`; each script's
    `%(authsh)s` is authsh's origin. Reports `origin`, `allowed`, `otherOrigin`, `other` (and
    `error` when the browser failed) as JSON on stdout."""
    from cdp import Browser

    server, port = serve(go)
    report = {} if report is None else report
    scripts = {"authsh": json.dumps(authsh)}
    try:
        with Browser(on_event=on_event) as b:
            b.call("Page.enable")
            b.call("Log.enable")
            b.call("Page.navigate", url=f"http://localhost:{port}/")
            b.wait_for("document.title === 'web app'", "the allowed page")
            report["origin"] = b.evaluate("location.origin")
            report["allowed"] = b.evaluate_async(flow % scripts)
            b.call("Page.navigate", url=f"http://127.0.0.1:{port}/")
            b.wait_for("document.title === 'web app' && location.hostname === '127.0.0.1'", "the other page")
            report["otherOrigin"] = b.evaluate("location.origin")
            report["other"] = b.evaluate_async(refused % scripts)
    except Exception as error:
        report["error"] = str(error)
    finally:
        server.shutdown()
    print(json.dumps(report))
