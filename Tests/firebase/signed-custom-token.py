# SPDX-License-Identifier: Apache-2.0
"""A custom token signed as the Admin SDK signs it in production, with a service account.

Usage: signed-custom-token.py PROJECT UID

Makes a throwaway service account (a new RSA key), initializes firebase-admin with it (not in
emulator mode: the SDK signs the token RS256 with the account's private key) and prints one JSON
object: the account's email, its public key (PEM), the token, and a token the key of another
account signed with the same email (which must be refused).
"""
import json
import os
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)

import firebase_admin  # noqa: E402
from firebase_admin import auth, credentials  # noqa: E402

project, uid = sys.argv[1:3]
email = f"backend@{project}.iam.gserviceaccount.com"


def account(name):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    info = {
        "type": "service_account",
        "project_id": project,
        "private_key_id": name,
        "private_key": private,
        "client_email": email,
        "client_id": "1",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    app = firebase_admin.initialize_app(credentials.Certificate(info), options={"projectId": project}, name=name)
    return app, public


ours, public = account("ours")
other, _ = account("other")
print(
    json.dumps(
        {
            "clientEmail": email,
            "publicKey": public,
            "token": auth.create_custom_token(uid, {"tier": "gold"}, app=ours).decode(),
            "forged": auth.create_custom_token(uid, app=other).decode(),
        }
    )
)
