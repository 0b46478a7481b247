-- SPDX-License-Identifier: Apache-2.0
-- reauthenticate.lua: a sensitive operation that wants a recent login.
--
-- With `recentLoginSeconds` set, deleting the user, unlinking, changing the password and
-- ending sessions need a login at most that old (the access token's `auth_time`; a refresh
-- keeps it). The script sets it to 5 minutes with the dev API, logs in, moves the dev clock
-- past it, sees RequiresRecentLogin, reauthenticates (the same user object, new tokens; a
-- credential of another user is refused with UserMismatch), and the delete goes through.
--
-- Run: authsh scripts/recipes/reauthenticate.lua

local run = math.random(1 << 53)
local email, other = ("heidi+%d@example.com"):format(run), ("ivan+%d@example.com"):format(run)
local password = "s3cret-pass"
for _, address in ipairs{ email, other } do
  register{ email = address, password = password }
  confirm(outbox{ email = address, kind = "confirm" }[1])
end

auth.dev.config{ recentLoginSeconds = 300 }

local user = login(credentials.emailPassword(email, password))
auth.dev.advanceClock(301)

-- A refresh does not make a login recent: the delete is refused.
user:refreshCustomData()
local ok, err = pcall(user.delete, user)
assert(not ok and err.code == "RequiresRecentLogin", "expected RequiresRecentLogin, got " .. tostring(err))
print("delete: " .. err.code)

-- Another user's credentials do not reauthenticate this one, and change nothing.
local token = user.refreshToken
ok, err = pcall(user.reauthenticate, user, credentials.emailPassword(other, password))
assert(not ok and err.code == "UserMismatch", "expected UserMismatch, got " .. tostring(err))
assert(user.refreshToken == token, "a mismatched reauthentication keeps the user's tokens")

-- The user's own credentials: the same object, new tokens, one session.
local same = user:reauthenticate(credentials.emailPassword(email, password))
assert(same == user and user.refreshToken ~= token, "reauthenticating keeps the user and replaces its tokens")
local sessions = user:sessions()
assert(#sessions == 1 and sessions[1].current, "the old session ended: " .. #sessions)
print("reauthenticated " .. user.id)

user:delete()
assert(user.state == "removed", "deleted users are removed: " .. user.state)
print("deleted " .. email)

auth.dev.config{ recentLoginSeconds = auth.ejson.null }  -- back to the default (off)
print("ok: reauthenticate")
