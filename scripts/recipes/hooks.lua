-- SPDX-License-Identifier: Apache-2.0
-- hooks.lua: the app's hooks, triggers and outbound HTTP, driven from Lua on the embedded server.
--
-- Turns on the hooks and the trigger of plugins/hooks.lua through the dev API:
-- `onlyOurDomains` refuses a sign-up from outside the app's email domains and gives new
-- members a role, `rolesClaim` puts the user's roles in every access token, and the CREATE
-- trigger `recordSignup` records each sign-up after the fact and posts it to a webhook with
-- `context.http` (here the dev server's own webhook sink, its origin in `httpAllowList`). They
-- are turned off again at the end, even when something fails.
--
-- Run: authsh scripts/recipes/hooks.lua

local webhook = auth.dev.webhookURL()
local origin = webhook:match("^(https?://[^/]+)")

local function useHooks(on)
  auth.dev.config{
    httpAllowList = on and { origin } or {},
    hooks = on and { beforeUserCreated = "onlyOurDomains", accessTokenClaims = "rolesClaim" }
      or { beforeUserCreated = auth.ejson.null, accessTokenClaims = auth.ejson.null },
    values = {
      signupDomains = on and { "example.com" } or auth.ejson.null,
      signupWebhook = on and webhook or auth.ejson.null,
    },
    triggers = on and {
      { name = "onSignup", type = "AUTHENTICATION", function_name = "recordSignup", config = { operation_type = "CREATE" } },
    } or {},
  }
end

local function main()
  local n = math.random(1 << 53)
  local member, outsider = ("dana+%d@example.com"):format(n), ("eve+%d@example.org"):format(n)
  for _, email in ipairs{ member, outsider } do
    register{ email = email, password = "hooks-pass" }
    local mails = outbox{ email = email, kind = "confirm" }
    confirm(mails[#mails])
  end

  -- An address of another domain: the beforeUserCreated hook refuses, with its reason.
  local ok, err = pcall(login, credentials.emailPassword(outsider, "hooks-pass"))
  assert(not ok and err.code == "HookRefused", "the outsider should be refused: " .. tostring(err))
  print(("%s refused: %s (%s, HTTP %d)"):format(outsider, err.message, err.code, err.status))

  -- A member: created with the role the hook gave, and the roles claim in the access token.
  local user = login(credentials.emailPassword(member, "hooks-pass"))
  assert(user.customData.roles[1] == "member", "the hook should give the member role")
  assert(user.claims.roles[1] == "member", "the access token should carry the roles claim")
  print(("%s signed up: roles %s in the token"):format(member, auth.ejson.encode(user.claims.roles)))

  -- The CREATE trigger ran after the login answered: wait for the queue, then read its record.
  assert(auth.dev.waitForTriggers() == 0, "the trigger should have run")
  local signup = user:callFunction("mySignup")
  assert(signup and signup.email == member and signup.provider == "local-userpass", "the trigger should record the sign-up")
  local runs = auth.dev.triggerRuns{ state = "done" }
  print(("the onSignup trigger ran (%s, %d attempt): recorded %s"):format(runs[1].state, runs[1].attempts, signup.email))
  local posted = auth.dev.webhooks()
  local last = auth.ejson.decode(posted[#posted].body)
  assert(last.email == member, "the trigger should post the sign-up to the webhook")
  print(("and posted it to the webhook: %s %s"):format(posted[#posted].method, posted[#posted].body))

  -- The claim follows the user's custom data at every refresh: `visit` (plugins/functions.lua)
  -- replaces the custom data, roles and all.
  user:callFunction("visit")
  user:refreshCustomData()
  assert(user.customData.visits == 1 and user.claims.roles == nil, "a refresh asks the hook again")
  print("after visit and a refresh: no roles, no roles claim")
end

useHooks(true)
local ok, err = pcall(main)
useHooks(false)
if not ok then error(err, 0) end
print("ok: hooks")
