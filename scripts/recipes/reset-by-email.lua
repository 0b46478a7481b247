-- SPDX-License-Identifier: Apache-2.0
-- reset-by-email.lua: reset a forgotten password with the link the server mails.
--
-- Creates and confirms an account, asks for a reset email, takes the token and tokenId from
-- the reset mail in the dev server's outbox, sets a new password with them, and shows that
-- the new password logs in while the old one is refused.
--
-- Run: authsh scripts/recipes/reset-by-email.lua

local email = ("bob+%d@example.com"):format(math.random(1 << 53))
local oldPassword, newPassword = "old-secret", "new-secret"

-- An account to work with: register, confirm, log in.
register{ email = email, password = oldPassword }
local confirmations = outbox{ email = email, kind = "confirm" }
confirm(confirmations[#confirmations])
local user = login(credentials.emailPassword(email, oldPassword))
print(("logged in as %s (user id %s)"):format(email, user.id))

-- "Forgot password": the server mails a link with a token and a tokenId.
app.emailPasswordAuth:sendResetPasswordEmail(email)
local mails = outbox{ email = email, kind = "reset" }
assert(#mails == 1, "expected one reset mail, got " .. #mails)
local mail = mails[#mails]
assert(mail.token and mail.tokenId, "the reset mail should carry a token and a tokenId")
print(("reset mail to %s: %q"):format(mail.to, mail.subject))

resetPassword{ token = mail.token, tokenId = mail.tokenId, password = newPassword }
print("password reset")

-- A reset token works once.
local ok, err = pcall(resetPassword, { token = mail.token, tokenId = mail.tokenId, password = "third-secret" })
assert(not ok, "a reset token should not work twice")
print("using the token again fails: " .. tostring(err))

local again = login(credentials.emailPassword(email, newPassword))
assert(again == user, "the new password should log in the same user")
print("the new password logs in")

ok, err = pcall(login, credentials.emailPassword(email, oldPassword))
assert(not ok and err.code == "InvalidPassword", "the old password should be refused: " .. tostring(err))
print("the old password is refused: " .. tostring(err))

print("ok: reset-by-email")
