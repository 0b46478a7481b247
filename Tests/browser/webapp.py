# SPDX-License-Identifier: Apache-2.0
"""The web app of the browser tests: a minimal page (title "web app") served on 127.0.0.1 at a
port of its own choosing, so that no port picked and freed elsewhere is taken meanwhile. It
prints "listening PORT" for the test, which then allows the page's origin in the app and
creates GO_FILE; `serve` returns once it exists."""
import http.server, os, threading, time

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
