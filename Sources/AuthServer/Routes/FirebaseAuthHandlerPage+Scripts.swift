// SPDX-License-Identifier: Apache-2.0

/// The scripts of the emulator's sign-in pages (``FirebaseAuthHandlerPage``), each served as a
/// file of its own.
extension FirebaseAuthHandlerPage {
    /// The picker's script: a chosen or new account's fake claims become the `AuthEvent` the
    /// SDK waits for (firebase-tools' `widget_ui.ts`, `finishWithUser` and `saveAuthEvent`).
    /// A popup's event goes only to a frame of this origin (the SDK's iframe), and a redirect
    /// only to an http(s) URL: a `javascript:` `redirectUrl` would run in this origin.
    static let handlerJavaScript = #"""
        "use strict";
        const params = new URLSearchParams(location.search);
        const apiKey = params.get("apiKey") || "";
        const appName = params.get("appName") || "";
        const authType = params.get("authType") || "";
        const providerId = document.body.dataset.providerId;
        const eventId = params.get("eventId");
        const tenantId = params.get("tid") || params.get("tenantId");

        function fail(message) {
          document.getElementById("error").textContent = message;
        }

        function sdkFrame() {
          if (!window.opener) return null;
          for (let i = 0; i < window.opener.frames.length; i++) {
            try {
              const frame = window.opener.frames[i];
              const query = new URLSearchParams(frame.location.search);
              if (frame.location.origin === location.origin && frame.location.pathname === "/emulator/auth/iframe"
                  && query.get("apiKey") === apiKey && (query.get("appName") || "") === appName) return frame;
            } catch (error) { /* a frame of another origin */ }
          }
          return null;
        }

        function finish(claims) {
          const urlResponse = location.origin + location.pathname + "?providerId=" + encodeURIComponent(providerId)
            + "&id_token=" + encodeURIComponent(JSON.stringify(claims));
          const authEvent = { type: authType, eventId, urlResponse, sessionId: "ValueNotUsedByAuthEmulator", postBody: "",
            tenantId, error: null };
          const storageKey = "firebase:redirectEvent:" + apiKey + ":" + appName;
          if (/popup/i.test(authType)) {
            const frame = sdkFrame();
            if (!frame) return fail("The page that opened this one has no Firebase SDK frame for this app: open it with signInWithPopup.");
            frame.postMessage({ data: { authEvent, storageKey }, eventId: String(Math.floor(Math.random() * 1e15)),
              eventType: "sendAuthEvent" }, location.origin);
            document.body.dataset.done = "popup";
            return;
          }
          let target = null;
          try { target = new URL(params.get("redirectUrl")); } catch (error) { target = null; }
          if (!target || (target.protocol !== "http:" && target.protocol !== "https:")) {
            return fail("redirectUrl must be an http or https URL.");
          }
          sessionStorage.setItem(storageKey, JSON.stringify(authEvent));
          location.assign(target.href);
        }

        function randomDigits(count) {
          const bytes = new Uint8Array(count);
          crypto.getRandomValues(bytes);
          return Array.from(bytes, byte => String(byte % 10)).join("");
        }

        document.querySelectorAll(".js-reuse-account").forEach(button =>
          button.addEventListener("click", () => finish(JSON.parse(button.dataset.idToken))));
        document.getElementById("new-account").addEventListener("submit", event => {
          event.preventDefault();
          const form = new FormData(event.target);
          const email = String(form.get("email") || "").trim();
          if (!email.includes("@")) return fail("An email has an @.");
          const claims = { sub: randomDigits(40), iss: "", aud: "", exp: 0, iat: 0, email, email_verified: true };
          for (const [field, claim] of [["displayName", "name"], ["screenName", "screen_name"], ["photoUrl", "picture"]]) {
            const value = String(form.get(field) || "").trim();
            if (value) claims[claim] = value;
          }
          finish(claims);
        });
        if (!apiKey || !(appName || params.get("appId") || params.get("clientId") || params.get("apn") || params.get("ibi"))) {
          fail("A Firebase SDK opens this page (its apiKey and appName are missing).");
        }
        """#

    /// The SDK's iframe's script (firebase-tools' `handlers.ts`): the redirect's event kept in
    /// this origin's `sessionStorage` (taken once), and a popup's posted by the picker (from
    /// this origin only: another page must not slip an event to the SDK), handed to the SDK
    /// through `gapi.iframes`; every event held is in `window.authshAuthEvents` too.
    static let iframeJavaScript = #"""
        "use strict";
        window.authshAuthEvents = [];
        const query = new URLSearchParams(location.search);
        const storageKey = "firebase:redirectEvent:" + (query.get("apiKey") || "") + ":" + (query.get("appName") || "");
        let redirectEvent = null;
        try { redirectEvent = JSON.parse(sessionStorage.getItem(storageKey) || "null"); } catch (error) { redirectEvent = null; }
        sessionStorage.removeItem(storageKey);
        if (redirectEvent) window.authshAuthEvents.push(redirectEvent);
        let parent = null;
        const waiting = [];

        function send(authEvent) {
          parent.send("authEvent", { type: "authEvent", authEvent }, undefined, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
        }

        window.addEventListener("message", event => {
          if (event.origin !== location.origin) return;
          const message = event.data || {};
          if (message.eventType !== "sendAuthEvent" || !message.data || !message.data.authEvent) return;
          window.authshAuthEvents.push(message.data.authEvent);
          if (parent) send(message.data.authEvent); else waiting.push(message.data.authEvent);
        });

        const gapiScript = document.createElement("script");
        gapiScript.src = "https://apis.google.com/js/api.js";
        gapiScript.onload = () => gapi.load("gapi.iframes", () => {
          parent = gapi.iframes.getContext().getParentIframe();
          parent.register("webStorageSupport", () => ({ status: "ACK", webStorageSupport: true }),
            gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
          parent.send("authEvent", { type: "authEvent",
            authEvent: redirectEvent || { type: "unknown", error: { code: "auth/no-auth-event" } } },
            undefined, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
          waiting.splice(0).forEach(send);
        });
        document.head.appendChild(gapiScript);
        """#
}
