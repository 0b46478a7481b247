# SPDX-License-Identifier: Apache-2.0
"""The dev server's passkey page (/dev/passkeys/local) in headless Chromium, with the DevTools
protocol's virtual authenticator standing in for a phone or a laptop's: CTAP2, an internal
(platform) authenticator with resident keys and user verification.

    passkey-browser.py ORIGIN register
        signs up (an account and its passkey) and signs in with it; reports the answers and the
        virtual authenticator's credentials (WebAuthn.getCredentials)
    passkey-browser.py ORIGIN signin FILE
        puts the credentials of FILE (a software authenticator's export: base64url) into the
        virtual authenticator (WebAuthn.addCredential) and signs in with them

Prints one JSON line: the report, or {"error": ...}."""
import base64, json, sys

from cdp import Browser


def standard(b64url):
    """base64url (no padding) as the protocol's standard base64."""
    return base64.b64encode(base64.urlsafe_b64decode(b64url + "=" * (-len(b64url) % 4))).decode()


def main():
    origin, mode = sys.argv[1], sys.argv[2]
    report = {}
    events = []
    with Browser(on_event=lambda m: events.append(m.get("method"))) as b:
        b.call("WebAuthn.enable")
        authenticator = b.call("WebAuthn.addVirtualAuthenticator", options={
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True})["authenticatorId"]
        if mode == "signin":
            with open(sys.argv[3]) as f:
                for c in json.load(f):
                    b.call("WebAuthn.addCredential", authenticatorId=authenticator, credential={
                        "credentialId": standard(c["id"]), "isResidentCredential": True, "rpId": c["rpId"],
                        "privateKey": standard(c["privateKey"]), "userHandle": standard(c["userHandle"]),
                        "signCount": c["signCount"]})
        b.call("Page.navigate", url=origin + "/dev/passkeys/local")
        b.wait_for("window.authsh !== undefined", "the passkey page")
        report["origin"] = b.evaluate("location.origin")
        if mode == "register":
            report["signUp"] = b.evaluate_async("authsh.signUp('browser')", user_gesture=True)
        report["signIn"] = b.evaluate_async("authsh.signIn()", user_gesture=True)
        report["credentials"] = b.call("WebAuthn.getCredentials", authenticatorId=authenticator)["credentials"]
    print(json.dumps(report), flush=True)


try:
    main()
except Exception as error:
    print(json.dumps({"error": str(error)}), flush=True)
