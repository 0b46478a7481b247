-- SPDX-License-Identifier: Apache-2.0
-- load.lua: onboard N users concurrently and measure the throughput.
--
-- Each of N tasks registers a user, reads its confirmation mail from the outbox, confirms
-- and logs in; that is 3 operations per user. The users are kept in memory only
-- (persist = false), so a load run leaves no users in authsh's user store (the server keeps
-- its accounts, with addresses unique to each run).
--
-- Run: authsh scripts/recipes/load.lua [N]        (N defaults to 200)

local n = math.tointeger(tonumber(arg[1] or "200"))
assert(n and n >= 1, "usage: authsh scripts/recipes/load.lua [N], N a positive whole number")

local run = math.random(1 << 53)
local password = "load-pass"
local a = auth.app{ id = app.id, persist = false } -- same app and server as `app`
local progress = auth.progress(n)
local seconds = { register = 0, confirm = 0, login = 0 } -- time spent in each kind, all tasks

local function onboard(i)
  local email = ("load+%d-%d@example.com"):format(run, i)
  local t0 = auth.clock()
  a.emailPasswordAuth:registerUser{ email = email, password = password }
  local t1 = auth.clock()
  -- outbox{} reads the default app's outbox: the same server and app id as `a`.
  local mails = outbox{ email = email, kind = "confirm" }
  assert(#mails == 1, "expected one confirmation mail for " .. email)
  a.emailPasswordAuth:confirmUser(mails[1].token, mails[1].tokenId)
  local t2 = auth.clock()
  local user = a:login(credentials.emailPassword(email, password))
  local t3 = auth.clock()
  seconds.register = seconds.register + (t1 - t0)
  seconds.confirm = seconds.confirm + (t2 - t1)
  seconds.login = seconds.login + (t3 - t2)
  progress:step()
  return user
end

local started = auth.clock()
local tasks = {}
for i = 1, n do
  tasks[i] = auth.spawn(onboard, i)
end
local onboarded = auth.wait(tasks) -- the users, in task order; raises if a task failed
progress:done()
local elapsed = auth.clock() - started

local loggedIn = 0
for _, user in ipairs(onboarded) do
  if user.state == "loggedIn" then loggedIn = loggedIn + 1 end
end
assert(loggedIn == n, ("expected %d users logged in, got %d"):format(n, loggedIn))
assert(#a.allUsers == n, ("the load app should know %d users, it knows %d"):format(n, #a.allUsers))

print(("%d users registered, confirmed and logged in, %.2f s"):format(n, elapsed))
print(("%.1f users/s, %.1f operations/s"):format(n / elapsed, 3 * n / elapsed))
print(("mean latency: register %.1f ms, confirm %.1f ms (with the outbox read), login %.1f ms"):format(
  seconds.register / n * 1000, seconds.confirm / n * 1000, seconds.login / n * 1000))

print("ok: load")
