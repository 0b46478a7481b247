-- SPDX-License-Identifier: Apache-2.0
-- passkey-and-totp.lua: sign up with a passkey, add TOTP, and log in with both, with no
-- browser and no phone: the script holds the authenticators.
--
-- auth.passkey.authenticator() answers the server's WebAuthn options exactly as a browser
-- would. A security key that does not verify its user (verifiesUser = false) is one factor, so
-- once the account has TOTP its logins ask for the code too; a phone's passkey, which verifies
-- its user, counts as two factors on its own. Each login happens on "another device": an app
-- object whose users are kept in memory.
--
-- Run: authsh scripts/recipes/passkey-and-totp.lua

local function now() return auth.dev.advanceClock(0).now end
local function nextStep() return auth.dev.advanceClock(30).now end

-- Sign up: a new account, made permanent by a passkey on a security key.
local key = auth.passkey.authenticator{ verifiesUser = false }
local user = login(credentials.anonymous{ reuse = false })
local passkey = user:registerPasskey{ authenticator = key, name = "security key" }
print("signed up with a passkey: " .. passkey.name)

-- Add TOTP; the script is the authenticator app.
local enrolment = user:enrollTOTP()
user:confirmTOTP(auth.totp(enrolment.secret, now()))
print("added TOTP")

-- Log in elsewhere with the security key: one factor, so the code is asked for.
local elsewhere = auth.app{ persist = false }
local ok, err = pcall(elsewhere.login, elsewhere, credentials.passkey(key))
assert(not ok and err.code == "MFARequired", "expected MFARequired, got " .. tostring(err))
local again = elsewhere:login(credentials.mfa(err, auth.totp(enrolment.secret, nextStep())))
assert(again.id == user.id, "the same user")
print("logged in with the passkey and a code")

-- Add a phone's passkey. Now that the account has TOTP, only a login that used a second
-- factor may add one (the first session, from before TOTP, is refused), and the phone's
-- passkey verifies its user: two factors on its own.
local phone = auth.passkey.authenticator()
local refused, why = pcall(user.registerPasskey, user, { authenticator = phone })
assert(not refused and why.code == "RequiresRecentLogin", "expected RequiresRecentLogin, got " .. tostring(why))
again:registerPasskey{ authenticator = phone, name = "phone" }
local third = auth.app{ persist = false }
assert(third:login(credentials.passkey(phone)).id == user.id, "a verifying passkey needs no code")
print("logged in with the phone's passkey alone")

assert(#user:passkeys() == 2 and key.credentials[1].signCount == 1)
print("ok: passkey-and-totp")
