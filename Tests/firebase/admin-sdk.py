# SPDX-License-Identifier: Apache-2.0
"""Google's Firebase Admin SDK against authsh's Firebase API, in its emulator mode.

Usage: admin-sdk.py HOST:PORT PROJECT API_KEY

Signs a user up through the client API, then has the Admin SDK (FIREBASE_AUTH_EMULATOR_HOST)
verify the ID token as the project and as another project; then signs in with a custom token the
SDK made (unsigned, as in emulator mode) and verifies that user's token; then makes, verifies and
revokes a session cookie. Prints one JSON object.
"""
import datetime
import json
import os
import sys
import time
import urllib.request

host, project, key = sys.argv[1:4]
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = host

import firebase_admin  # noqa: E402 (reads the environment when the app is made)
from firebase_admin import auth  # noqa: E402


def post(path, body):
    request = urllib.request.Request(
        f"http://{host}{path}?key={key}", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


report = {}
signed_up = post("/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": "sdk@example.com", "password": "password1"})
ours = firebase_admin.initialize_app(options={"projectId": project}, name="ours")
claims = auth.verify_id_token(signed_up["idToken"], app=ours)
report["verified"] = {
    "uid": claims["uid"],
    "email": claims.get("email"),
    "provider": claims["firebase"]["sign_in_provider"],
    "localId": signed_up["localId"],
}
other = firebase_admin.initialize_app(options={"projectId": "another-project"}, name="other")
try:
    auth.verify_id_token(signed_up["idToken"], app=other)
    report["otherProject"] = "accepted"
except auth.InvalidIdTokenError as error:
    report["otherProject"] = type(error).__name__
custom = auth.create_custom_token("custom-uid-1", {"plan": "pro"}, app=ours).decode()
signed_in = post("/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken", {"token": custom, "returnSecureToken": True})
custom_claims = auth.verify_id_token(signed_in["idToken"], app=ours)
report["custom"] = {
    "isNewUser": signed_in.get("isNewUser"),
    "provider": custom_claims["firebase"]["sign_in_provider"],
    "uid": custom_claims["uid"],
    "localId": signed_in["localId"],
    "plan": custom_claims.get("plan"),
}
again = post("/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken", {"token": custom})
report["custom"]["sameUser"] = again["localId"] == signed_in["localId"] and again.get("isNewUser") is False

# A session cookie of the first user's ID token: verified, then revoked with the user's tokens.
cookie = auth.create_session_cookie(signed_up["idToken"], expires_in=datetime.timedelta(days=1), app=ours)
decoded = auth.verify_session_cookie(cookie, check_revoked=True, app=ours)
report["sessionCookie"] = {"uid": decoded["uid"], "iss": decoded["iss"], "localId": signed_up["localId"]}
try:
    auth.verify_id_token(cookie, app=ours)
    report["sessionCookie"]["asIdToken"] = "accepted"
except auth.InvalidIdTokenError as error:
    report["sessionCookie"]["asIdToken"] = type(error).__name__
# Revocation compares whole seconds (a token issued in the second of validSince stays good):
# let the server's clock pass the cookie's second first.
time.sleep(1.1)
auth.revoke_refresh_tokens(signed_up["localId"], app=ours)
try:
    auth.verify_session_cookie(cookie, check_revoked=True, app=ours)
    report["sessionCookie"]["revoked"] = "accepted"
except auth.RevokedSessionCookieError as error:
    report["sessionCookie"]["revoked"] = type(error).__name__
print(json.dumps(report))
