# SPDX-License-Identifier: Apache-2.0
"""A real SMTP server for the mail tests: aiosmtpd on a loopback port.

Every message it accepts is written to DIR as N.json (envelope and the raw message), in
order. Options make it behave as relays do:

  --starttls CERT KEY   offer STARTTLS with that certificate (and require it before MAIL)
  --auth USER:PASSWORD  require AUTH (PLAIN or LOGIN), only after STARTTLS
  --fail CODES          answer DATA with these codes in turn (e.g. 421,451), then accept;
                        a code followed by '+' (550+) answers it every time
  --port N              listen on N (default: a free port)
  --stall SECONDS       hold the first DATA that many seconds before answering it, having
                        written DIR/stalled (a client killed meanwhile never gets the answer)

It prints "listening PORT" once it accepts connections.
"""
import argparse
import asyncio
import json
import os
import signal
import socket
import ssl
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--starttls", nargs=2)
    p.add_argument("--auth")
    p.add_argument("--fail", default="")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--stall", type=float, default=0)
    a = p.parse_args()

    codes = [c for c in a.fail.split(",") if c]
    state = {"count": len(os.listdir(a.dir))}

    stall = {"left": a.stall}

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            if stall["left"]:
                seconds, stall["left"] = stall["left"], 0
                open(os.path.join(a.dir, "stalled"), "w").close()
                await asyncio.sleep(seconds)
            if codes:
                code = codes[0]
                if code.endswith("+"):
                    return f"{code[:-1]} refused by the test server"
                codes.pop(0)
                return f"{code} try again later (test server)"
            state["count"] += 1
            path = os.path.join(a.dir, f"{state['count']}.json")
            record = {
                "from": envelope.mail_from,
                "to": envelope.rcpt_tos,
                "data": envelope.original_content.decode("utf-8", "replace"),
                "tls": session.ssl is not None,
                "auth": session.authenticated,
            }
            with open(path + ".tmp", "w") as f:
                json.dump(record, f)
            os.rename(path + ".tmp", path)
            return "250 OK"

    def authenticator(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        user, password = a.auth.split(":", 1)
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False)

    # aiosmtpd needs a port number: a port bound here (SO_REUSEADDR, not listening) is held
    # until the server listens on it too, so no other process is given it in between.
    port, held = a.port, None
    if port == 0:
        held = socket.socket()
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]

    kwargs = {}
    if a.starttls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(a.starttls[0], a.starttls[1])
        kwargs.update(tls_context=context, require_starttls=True)
    if a.auth:
        kwargs.update(authenticator=authenticator, auth_required=True, auth_require_tls=True)
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, server_hostname="localhost", **kwargs)
    controller.start()
    if held:
        held.close()
    print(f"listening {port}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:  # until the test stops us
            time.sleep(3600)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
