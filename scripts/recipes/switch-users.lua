-- SPDX-License-Identifier: Apache-2.0
-- switch-users.lua: several users logged in at once.
--
-- Logs in two email/password users and one anonymous user, switches between them, lists the
-- users this device knows, logs one out, and shows that a logged-out user cannot be switched to.
--
-- Run: authsh scripts/recipes/switch-users.lua

local run = math.random(1 << 53)
local password = "s3cret-pass"

-- Register, confirm and log in a new email/password user.
local function newUser(name)
  local email = ("%s+%d@example.com"):format(name, run)
  register{ email = email, password = password }
  local mails = outbox{ email = email, kind = "confirm" }
  confirm(mails[#mails])
  return login(credentials.emailPassword(email, password))
end

local function known(user) -- is user among users()?
  for _, u in ipairs(users()) do
    if u == user then return true end
  end
  return false
end

local alice = newUser("alice")
local bob = newUser("bob")
local guest = login(credentials.anonymous{ reuse = false })
assert(whoami() == guest, "the last user to log in is the current user")
print("logged in alice, bob and an anonymous guest; current: guest " .. guest.id)

switchUser(alice)
assert(whoami() == alice, "switchUser(alice) should make alice current")
print("switched to " .. whoami().profile.email)

switchUser(bob.id) -- a user id works too
assert(whoami() == bob, "switchUser(bob.id) should make bob current")
print("switched to " .. whoami().profile.email)

assert(known(alice) and known(bob) and known(guest), "users() should list all three")
print(("users() lists %d users (these three and any left by earlier runs)"):format(#users()))

-- Logging out a user who is not current leaves the current user alone.
logout(alice)
assert(alice.state == "loggedOut", "expected loggedOut, got " .. alice.state)
assert(whoami() == bob, "bob should still be current")
print("logged out alice: state " .. alice.state)

local ok, err = pcall(switchUser, alice)
assert(not ok, "switching to a logged-out user should fail")
assert(whoami() == bob, "a failed switch should not change the current user")
print("switching to alice fails: " .. tostring(err))

-- An anonymous user cannot log in again, so logging it out removes it.
logout(guest)
assert(guest.state == "removed", "expected removed, got " .. guest.state)
assert(not known(guest), "a removed user is not listed")
print("logged out the guest: state " .. guest.state)

print("ok: switch-users")
