# SPDX-License-Identifier: Apache-2.0
"""The Firebase Auth client API (Identity Toolkit v1, Secure Token) by plain HTTP, as the client
SDKs call it: what the Admin SDK scripts here use to sign users in."""
import json
import urllib.error
import urllib.request


class ClientAPI:
    def __init__(self, host, key):
        self.host = host
        self.key = key

    def call(self, path, body):
        """POSTs JSON; returns (status, body), an error body included."""
        request = urllib.request.Request(
            f"http://{self.host}{path}?key={self.key}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    def accounts(self, method, body):
        return self.call(f"/identitytoolkit.googleapis.com/v1/accounts:{method}", body)

    def sign_in(self, email, password):
        """The answer of signInWithPassword, or Firebase's error message."""
        status, body = self.accounts("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
        return body if status == 200 else body["error"]["message"]

    def refresh(self, refresh_token):
        status, body = self.call(
            "/securetoken.googleapis.com/v1/token", {"grant_type": "refresh_token", "refresh_token": refresh_token}
        )
        return body if status == 200 else body["error"]["message"]
