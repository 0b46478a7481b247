# SPDX-License-Identifier: Apache-2.0
"""Google's Firebase Admin SDK manages authsh's users, in its emulator mode.

Usage: admin-users.py HOST:PORT PROJECT API_KEY

Creates, reads, updates, lists, disables, revokes, imports (with Firebase's scrypt, bcrypt,
PBKDF2 and HMAC hashes) and deletes users through the SDK, and signs them in through the client
API to see each change take effect. Prints one JSON object of what it saw.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.parse
import urllib.request

host, project, key = sys.argv[1:4]
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = host

import firebase_admin  # noqa: E402 (reads the environment when the app is made)
from firebase_admin import auth  # noqa: E402

from client_api import ClientAPI  # noqa: E402

client = ClientAPI(host, key)
app = firebase_admin.initialize_app(options={"projectId": project}, name="users")
report = {}


def error_name(call):
    """The SDK error class a call raises, or "none"."""
    try:
        call()
        return "none"
    except Exception as error:  # noqa: BLE001 (the class is what is reported)
        return type(error).__name__


# Create, then read back by id and by email.
made = auth.create_user(uid="made-1", email="made@example.com", password="password1", display_name="Made", app=app)
by_email = auth.get_user_by_email("made@example.com", app=app)
report["created"] = {
    "uid": made.uid,
    "email": made.email,
    "name": made.display_name,
    "providers": [p.provider_id for p in made.provider_data],
    "byEmail": by_email.uid,
    "signIn": client.sign_in("made@example.com", "password1").get("localId"),
}
report["duplicates"] = {
    "uid": error_name(lambda: auth.create_user(uid="made-1", app=app)),
    "email": error_name(lambda: auth.create_user(email="made@example.com", app=app)),
    "missing": error_name(lambda: auth.get_user("nobody-has-this", app=app)),
}

# Custom claims reach the next ID token.
auth.set_custom_user_claims("made-1", {"admin": True, "tier": 2}, app=app)
signed = client.sign_in("made@example.com", "password1")
claims = auth.verify_id_token(signed["idToken"], app=app)
report["claims"] = {
    "token": {"admin": claims.get("admin"), "tier": claims.get("tier")},
    "record": auth.get_user("made-1", app=app).custom_claims,
    "reserved": error_name(lambda: auth.set_custom_user_claims("made-1", {"sub": "x"}, app=app)),
}

# Revocation: the ID token of before is revoked for check_revoked, the refresh token refused.
time.sleep(1.05 - time.time() % 1)  # the next second: validSince is counted in seconds
auth.revoke_refresh_tokens("made-1", app=app)
report["revoked"] = {
    "idToken": error_name(lambda: auth.verify_id_token(signed["idToken"], app=app, check_revoked=True)),
    "refresh": client.refresh(signed["refreshToken"]),
    "validAfter": auth.get_user("made-1", app=app).tokens_valid_after_timestamp > 0,
}

# Disabled: no sign-in, and the record says so.
auth.update_user("made-1", disabled=True, display_name="Made Again", app=app)
report["disabled"] = {
    "record": auth.get_user("made-1", app=app).disabled,
    "name": auth.get_user("made-1", app=app).display_name,
    "signIn": client.sign_in("made@example.com", "password1"),
}
auth.update_user("made-1", disabled=False, password="password2", app=app)
report["enabled"] = {
    "signIn": "localId" in client.sign_in("made@example.com", "password2"),
    "oldPassword": client.sign_in("made@example.com", "password1"),
}

# Action links: a reset link whose code sets a password, a verification link that proves the email.
def code_of(link):
    return urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["oobCode"][0]


reset_link = auth.generate_password_reset_link("made@example.com", app=app)
status, _ = client.accounts("resetPassword", {"oobCode": code_of(reset_link), "newPassword": "password3"})
report["resetLink"] = {
    "mode": urllib.parse.parse_qs(urllib.parse.urlparse(reset_link).query)["mode"][0],
    "status": status,
    "signIn": "localId" in client.sign_in("made@example.com", "password3"),
}
verify_link = auth.generate_email_verification_link("made@example.com", app=app)
status, _ = client.accounts("update", {"oobCode": code_of(verify_link)})
report["verifyLink"] = {"status": status, "verified": auth.get_user("made-1", app=app).email_verified}

# Import: Firebase's scrypt (firebase/scrypt's README sample), bcrypt, PBKDF2, HMAC.
salt = b"salt-of-user"
scrypt = auth.UserImportHash.scrypt(
    key=base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
    rounds=8,
    memory_cost=14,
    salt_separator=base64.b64decode("Bw=="),
)
imports = [
    (
        scrypt,
        auth.ImportUserRecord(
            uid="imported-scrypt",
            email="user1@test.com",
            display_name="Test User 1",
            password_hash=base64.b64decode(
                "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
            ),
            password_salt=base64.b64decode("42xEC+ixf3L2lw=="),
            custom_claims={"imported": True},
        ),
        "user1password",
    ),
    (
        auth.UserImportHash.bcrypt(),
        auth.ImportUserRecord(
            uid="imported-bcrypt",
            email="bcrypt@example.com",
            password_hash=b"$2b$04$wUNWZJ/NHB19tE4t.W6WJexgB3UGVL73qsi2c1QawS7kxyFWtP9Ve",
        ),
        "password1",
    ),
    (
        auth.UserImportHash.pbkdf2_sha256(rounds=1000),
        auth.ImportUserRecord(
            uid="imported-pbkdf2",
            email="pbkdf2@example.com",
            password_hash=hashlib.pbkdf2_hmac("sha256", b"password1", salt, 1000, 64),
            password_salt=salt,
        ),
        "password1",
    ),
    (
        auth.UserImportHash.hmac_sha256(key=b"secret"),
        auth.ImportUserRecord(
            uid="imported-hmac",
            email="hmac@example.com",
            password_hash=hmac.new(b"secret", b"password1" + salt, hashlib.sha256).digest(),
            password_salt=salt,
            provider_data=[auth.UserProvider(uid="gh-4242", provider_id="github.com", email="hmac@example.com")],
        ),
        "password1",
    ),
]
report["imported"] = {}
for hash_alg, record, password in imports:
    result = auth.import_users([record], hash_alg=hash_alg, app=app)
    first = client.sign_in(record.email, password)
    second = client.sign_in(record.email, password)
    report["imported"][record.uid] = {
        "success": result.success_count,
        "signIn": first.get("localId") if isinstance(first, dict) else first,
        "again": isinstance(second, dict),
        "wrong": client.sign_in(record.email, password + "x"),
    }
report["imported"]["imported-scrypt"]["claims"] = auth.verify_id_token(
    client.sign_in("user1@test.com", "user1password")["idToken"], app=app
).get("imported")
report["imported"]["providers"] = sorted(p.provider_id for p in auth.get_user("imported-hmac", app=app).provider_data)
again = auth.import_users([imports[1][1]], hash_alg=imports[1][0], app=app)
report["importedTwice"] = {"failures": again.failure_count, "index": [e.index for e in again.errors]}

# Listing: every user, by pages.
report["listed"] = sorted(u.uid for u in auth.list_users(max_results=2, app=app).iterate_all())

# Deleting: one, then several (an unknown id is passed over).
auth.delete_user("imported-pbkdf2", app=app)
deleted = auth.delete_users(["imported-hmac", "imported-bcrypt", "nobody-has-this"], app=app)
report["deleted"] = {
    "successes": deleted.success_count,
    "failures": deleted.failure_count,
    "gone": error_name(lambda: auth.get_user("imported-hmac", app=app)),
    "signIn": client.sign_in("pbkdf2@example.com", "password1"),
}

# A custom token's uid is the user's id.
custom = auth.create_custom_token("made-1", app=app).decode()
status, signed_in = client.accounts("signInWithCustomToken", {"token": custom, "returnSecureToken": True})
report["customToken"] = {"status": status, "localId": signed_in.get("localId")}
# Phone numbers: made, found and changed through the SDK; a texted code signs the number in.
phoned = auth.create_user(uid="phoned-1", phone_number="+15550100050", email="phoned@example.com", app=app)
found_by_phone = auth.get_user_by_phone_number("+15550100050", app=app)
auth.update_user("phoned-1", phone_number="+15550100051", app=app)


def text_sign_in(number):
    """The localId a texted code signs in, the code read from the emulator's verificationCodes."""
    _, sent = client.accounts("sendVerificationCode", {"phoneNumber": number})
    listed = urllib.request.urlopen(f"http://{host}/emulator/v1/projects/{project}/verificationCodes").read()
    code = [c for c in json.loads(listed)["verificationCodes"] if c["sessionInfo"] == sent["sessionInfo"]][0]["code"]
    _, signed = client.accounts("signInWithPhoneNumber", {"sessionInfo": sent["sessionInfo"], "code": code})
    return signed.get("localId")


report["phone"] = {
    "made": phoned.phone_number,
    "found": found_by_phone.uid,
    "duplicate": error_name(lambda: auth.create_user(phone_number="+15550100051", app=app)),
    "signIn": text_sign_in("+15550100051"),
    "old": error_name(lambda: auth.get_user_by_phone_number("+15550100050", app=app)),
    "invalid": error_name(lambda: auth.update_user("phoned-1", phone_number="555-0100", app=app)),
}
auth.update_user("phoned-1", phone_number=auth.DELETE_ATTRIBUTE, app=app)
report["phone"]["removed"] = auth.get_user("phoned-1", app=app).phone_number
print(json.dumps(report))
