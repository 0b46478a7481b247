# SPDX-License-Identifier: Apache-2.0
"""A local HTTP server for the tests of plugins' outbound requests (context.http).

Listens on 127.0.0.1 on a port of its own and prints `listening PORT`. Routes:
/echo answers {method, path, headers, body} as JSON; /redirect answers 302 to another host;
/huge answers 2 MiB; /slow answers after 30 s.
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if self.path.startswith("/echo"):
            doc = {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
            self.answer(200, json.dumps(doc).encode(), [("Content-Type", "application/json")])
        elif self.path.startswith("/redirect"):
            self.answer(302, b"", [("Location", "http://example.invalid/stolen")])
        elif self.path.startswith("/huge"):
            self.answer(200, b"x" * (2 << 20))
        elif self.path.startswith("/slow"):
            time.sleep(30)
            self.answer(200, b"late")
        else:
            self.answer(404, b"no such route")

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
