-- SPDX-License-Identifier: Apache-2.0
-- totp.lua: a TOTP second factor, enrolled and used from a script that holds the authenticator.
--
-- The embedded server's app offers TOTP (config `mfa.totp.enabled`). A user enrols: the
-- server answers a secret and its otpauth:// URI (the REPL shows it as a QR code for a phone);
-- auth.totp(secret) makes the codes an authenticator app would show, and the first one confirms
-- the enrolment and brings 10 recovery codes. From then on the password alone answers
-- MFARequired with an mfaToken, and credentials.mfa(err, code) completes the login. A code is
-- accepted once: the script moves the dev clock to the next 30-second step before each new one.
--
-- Run: authsh scripts/recipes/totp.lua

local run = math.random(1 << 53)
local email, password = ("tess+%d@example.com"):format(run), "s3cret-pass"
register{ email = email, password = password }
confirm(outbox{ email = email, kind = "confirm" }[1])

-- The server's clock: the dev clock may have been moved by an earlier run on this data directory.
local function now() return auth.dev.advanceClock(0).now end
local function nextStep() return auth.dev.advanceClock(30).now end

local user = login(credentials.emailPassword(email, password))
local enrolment = user:enrollTOTP()
assert(enrolment.uri:find("^otpauth://totp/"), enrolment.uri)
local recovery = user:confirmTOTP(auth.totp(enrolment.secret, now()))
assert(#recovery == 10, "10 recovery codes")
print("enrolled: " .. enrolment.uri:match("^otpauth://totp/([^?]+)"))

-- The password alone is not enough any more.
local ok, err = pcall(login, credentials.emailPassword(email, password))
assert(not ok and err.code == "MFARequired" and err.mfaToken, "expected MFARequired, got " .. tostring(err))
print("first step: " .. err.code .. " (" .. table.concat(err.factors, ", ") .. ")")

-- The confirming code's step is spent: the same code is refused, the next step's logs in.
local replay = pcall(login, credentials.mfa(err, auth.totp(enrolment.secret, now())))
assert(not replay, "a code is accepted once")
local again = login(credentials.mfa(err, auth.totp(enrolment.secret, nextStep())))
assert(again == user, "the second step logs in the same user")
print("logged in with a code")

-- A recovery code works once, in place of the authenticator.
local _, second = pcall(login, credentials.emailPassword(email, password))
login(credentials.mfa(second, recovery[1]))
local _, third = pcall(login, credentials.emailPassword(email, password))
local reused, refused = pcall(login, credentials.mfa(third, recovery[1]))
assert(not reused and refused.code == "InvalidMFACode", "a recovery code is used once: " .. tostring(refused))
assert(user:secondFactors().recoveryCodes == 9)
print("recovery code: used once")

-- Removing the factor needs a recent login that used it: this one did.
user:removeTOTP()
assert(login(credentials.emailPassword(email, password)) == user, "the password alone logs in again")
print("ok: totp")
