-- SPDX-License-Identifier: Apache-2.0
-- link-anonymous.lua: turn an anonymous user into an email/password user.
--
-- Logs in anonymously, registers and confirms an email, and links it to the anonymous user:
-- the user keeps its id and gains a second identity. After logging out, the email and
-- password log back in to that same user.
--
-- Run: authsh scripts/recipes/link-anonymous.lua

local email = ("dave+%d@example.com"):format(math.random(1 << 53))
local password = "s3cret-pass"

-- reuse = false: always a new anonymous user, not one left logged in by an earlier run.
local guest = login(credentials.anonymous{ reuse = false })
assert(guest.isAnonymous, "a new anonymous user should be anonymous")
print("anonymous user " .. guest.id)

-- The email account must exist and be confirmed before it can be linked. Do not log in
-- with it: that would create a separate user that owns the email identity.
register{ email = email, password = password }
local mails = outbox{ email = email, kind = "confirm" }
confirm(mails[#mails])

local linked = linkIdentity(credentials.emailPassword(email, password))
assert(linked == guest, "linking should keep the same user")
local ids = guest.identities
assert(#ids == 2, "expected two identities, got " .. #ids)
assert(ids[1].providerType == "anon-user", "first identity: " .. ids[1].providerType)
assert(ids[2].providerType == "local-userpass", "second identity: " .. ids[2].providerType)
assert(not guest.isAnonymous, "a user with an email identity is no longer anonymous")
print(("linked %s: identities %s, %s"):format(email, ids[1].providerType, ids[2].providerType))

-- Logging out an anonymous user removes it; a linked user is only logged out.
logout()
assert(guest.state == "loggedOut", "expected loggedOut, got " .. guest.state)
print("logged out")

local back = login(credentials.emailPassword(email, password))
assert(back.id == guest.id, "email/password should log in the same user")
print(("logged in with %s: same user %s"):format(email, back.id))

print("ok: link-anonymous")
