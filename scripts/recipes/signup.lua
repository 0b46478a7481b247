-- SPDX-License-Identifier: Apache-2.0
-- signup.lua: sign up with an email and a password.
--
-- Registers a new account, shows that it cannot log in before it is confirmed, reads the
-- confirmation mail from the dev server's outbox, confirms the account and logs in.
--
-- Run: authsh scripts/recipes/signup.lua

-- authsh seeds math.random from the system's random source: every run draws a new address.
local email = ("alice+%d@example.com"):format(math.random(1 << 53))
local password = "s3cret-pass"

register{ email = email, password = password }
print("registered " .. email)

-- An address can be registered once.
local ok, err = pcall(register, { email = email, password = password })
assert(not ok and err.code == "AccountNameInUse", "registering twice should fail: " .. tostring(err))
print("registering again fails: " .. tostring(err))

-- Until the account is confirmed, logging in is refused.
ok, err = pcall(login, credentials.emailPassword(email, password))
assert(not ok, "logging in before confirming should fail")
assert(err.code == "AuthError", "unexpected error: " .. tostring(err))
print("logging in before confirming fails: " .. tostring(err))

-- The dev server keeps the mail it sends; the confirmation carries a token and a tokenId,
-- so the message itself is a valid argument of confirm.
local mails = outbox{ email = email, kind = "confirm" }
assert(#mails == 1, "expected one confirmation mail, got " .. #mails)
local mail = mails[#mails]
print(("mail to %s: %q"):format(mail.to, mail.subject))
confirm(mail)
print("confirmed")

local user = login(credentials.emailPassword(email, password))
assert(user.state == "loggedIn", "the new user should be logged in, not " .. user.state)
assert(user.profile.email == email, "the profile should carry the email")
assert(whoami() == user, "the user who just logged in should be the current user")
print(("logged in as %s (user id %s)"):format(user.profile.email, user.id))

print("ok: signup")
