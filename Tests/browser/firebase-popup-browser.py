#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Firebase's signInWithPopup and signInWithRedirect against authsh's emulator pages, in
headless Chromium. The web app's page (served here, on 127.0.0.1 as the SDK's apps on the
emulator are) plays the SDK's part as packages/auth does in emulator mode: it embeds authsh's
/emulator/auth/iframe with the app's apiKey and appName (iframe.ts, getIframeUrl) and opens
/emulator/auth/handler in a popup (handler.ts, _getRedirectUrl). The picker, a page of its own,
makes a new account; its event reaches the iframe, read there; its urlResponse goes to
signInWithIdp as requestUri, as the SDK sends it. Then the redirect: the page goes to the
picker, which lists the account just made; a click brings the browser back, and the iframe,
embedded again, holds the kept event. Last, a `javascript:` redirectUrl is refused.

The SDK itself cannot run here: it comes from the npm registry, which these machines do not
reach, and its emulator mode loads Google's gapi from apis.google.com.

Usage: firebase-popup-browser.py AUTHSH_ORIGIN GO_FILE. Reports JSON on stdout.
"""
import json, sys, time, urllib.parse, urllib.request

import webapp
from cdp import Browser

QUERY = "apiKey=web-api-key&appName=%5BDEFAULT%5D&v=test"


def sign_in(authsh, event):
    """signInWithIdp with the event's urlResponse as requestUri, as the SDK sends it."""
    body = json.dumps({"requestUri": event["urlResponse"], "sessionId": event["sessionId"], "returnSecureToken": True,
                       "returnIdpCredential": True}).encode()
    request = urllib.request.Request(f"{authsh}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=web-api-key",
                                     data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        answer = json.load(response)
    return {key: answer.get(key) for key in ["localId", "email", "displayName", "providerId", "isNewUser"]}


def main():
    authsh, go = sys.argv[1], sys.argv[2]
    contexts = {}

    def on_event(message):
        # The main world of each frame, by origin: the iframe's events are read there.
        if message.get("method") == "Runtime.executionContextCreated":
            context = message["params"]["context"]
            if context.get("auxData", {}).get("isDefault"):
                contexts[context["origin"]] = context["id"]

    server, port = webapp.serve(go)
    page = f"http://127.0.0.1:{port}"
    report = {}
    try:
        with Browser(on_event=on_event) as b:
            b.call("Page.enable")
            b.call("Runtime.enable")

            def embed_iframe():
                contexts.pop(authsh, None)
                b.evaluate(f"""(() => {{ const f = document.createElement("iframe");
                    f.src = {json.dumps(authsh + "/emulator/auth/iframe?" + QUERY + "&eid=p")};
                    document.body.appendChild(f); }})()""")
                deadline = time.time() + 20
                while authsh not in contexts and time.time() < deadline:
                    b.evaluate("1")  # lets the context's event arrive
                    time.sleep(0.05)

            def iframe_events(count):
                deadline = time.time() + 20
                while time.time() < deadline:
                    if authsh in contexts:
                        result = b.call("Runtime.evaluate", expression="JSON.stringify(window.authshAuthEvents || [])",
                                        contextId=contexts[authsh], returnByValue=True)
                        events = json.loads(result.get("result", {}).get("value") or "[]")
                        if len(events) >= count:
                            return events
                    time.sleep(0.05)
                return []

            # The popup.
            b.call("Page.navigate", url=page + "/")
            b.wait_for("document.title === 'web app'", "the web app")
            embed_iframe()
            handler = (f"{authsh}/emulator/auth/handler?{QUERY}&authType=signInViaPopup&providerId=google.com"
                       f"&eventId=1234567890&redirectUrl=" + urllib.parse.quote(page + "/", safe=""))
            b.evaluate_async(f"Promise.resolve(!!window.open({json.dumps(handler)}, 'firebaseAuth', 'width=500,height=600'))",
                             user_gesture=True)
            popup = b.attach(lambda url: "/emulator/auth/handler" in url, "the popup")
            popup.wait_for("!!document.getElementById('new-account')", "the picker")
            report["popupTitle"] = popup.evaluate("document.title")
            popup.evaluate("""(() => {
                const form = document.getElementById("new-account");
                form.elements.email.value = "pop@example.com";
                form.elements.displayName.value = "Pop Up";
                form.elements.photoUrl.value = "https://example.com/pop.png";
                document.getElementById("sign-in").click(); })()""")
            popup.wait_for("document.body.dataset.done === 'popup' || document.getElementById('error').textContent !== ''",
                           "the popup's answer")
            report["popupError"] = popup.evaluate("document.getElementById('error').textContent")
            events = iframe_events(1)
            report["popupEvent"] = events[0] if events else None
            if events:
                report["popupSignIn"] = sign_in(authsh, events[0])

            # The redirect: the account made is listed, and picked.
            redirect = (f"{authsh}/emulator/auth/handler?{QUERY}&authType=signInViaRedirect&providerId=google.com"
                        f"&redirectUrl=" + urllib.parse.quote(page + "/back", safe=""))
            b.call("Page.navigate", url=redirect)
            b.wait_for("!!document.getElementById('accounts')", "the picker")
            report["listed"] = b.evaluate("Array.from(document.querySelectorAll('.js-reuse-account'), b => b.textContent)")
            b.evaluate("""Array.from(document.querySelectorAll('.js-reuse-account'))
                .find(b => b.textContent.includes('pop@example.com')).click()""")
            b.wait_for(f"location.href === {json.dumps(page + '/back')}", "the way back")
            embed_iframe()
            events = iframe_events(1)
            report["redirectEvent"] = events[0] if events else None
            if events:
                report["redirectSignIn"] = sign_in(authsh, events[0])

            # A redirectUrl that would run script in authsh's origin goes nowhere.
            hostile = (f"{authsh}/emulator/auth/handler?{QUERY}&authType=signInViaRedirect&providerId=google.com"
                       f"&redirectUrl=" + urllib.parse.quote("javascript:document.title='owned'", safe=""))
            b.call("Page.navigate", url=hostile)
            b.wait_for("!!document.getElementById('accounts')", "the picker")
            b.evaluate("document.querySelector('.js-reuse-account').click()")
            b.wait_for("document.getElementById('error').textContent !== ''", "the refusal")
            report["hostile"] = b.evaluate("[document.title, document.getElementById('error').textContent, location.pathname]")
    except Exception as error:
        report["error"] = str(error)
    finally:
        server.shutdown()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
