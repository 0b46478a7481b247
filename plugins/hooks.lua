-- SPDX-License-Identifier: Apache-2.0
-- plugins/hooks.lua: hooks and triggers an app turns on in its config, e.g.
--   "hooks": {"beforeUserCreated": "onlyOurDomains", "accessTokenClaims": "rolesClaim"},
--   "triggers": [{"name": "onSignup", "type": "AUTHENTICATION", "function_name": "recordSignup",
--                 "config": {"operation_type": "CREATE"}}]
-- Until a config names them they are ordinary functions (the guards below refuse direct calls).
local hooks = {}

-- beforeUserCreated: only addresses of the app's own domains may sign up (config
-- `values.signupDomains`, e.g. ["example.com"]; without it, anyone). A new user gets the
-- role "member" in its custom data.
function hooks.onlyOurDomains(event)
  if context.user ~= nil then error("onlyOurDomains is a hook, not a callable function") end
  local domains = context.values.signupDomains
  if domains == nil then return nil end
  local email = event.identity.email or event.identity.provider_data.email
  local domain = type(email) == "string" and email:match("@([^@]+)$")
  if not domain then error("sign-ups need an email address") end
  for _, allowed in ipairs(domains) do
    if domain:lower() == allowed:lower() then
      return { custom_data = { roles = { "member" } } }
    end
  end
  error("sign-ups are open to " .. table.concat(domains, ", ") .. " addresses only")
end

-- accessTokenClaims: the user's roles, kept in its custom data, as a claim of every access
-- token (no roles, no claim).
function hooks.rolesClaim(event)
  if context.user ~= nil then error("rolesClaim is a hook, not a callable function") end
  local custom = event.user.custom_data or {}
  return { roles = custom.roles }
end

-- A CREATE trigger: runs after a user is created (not in the login's request; retried when it
-- fails), records the sign-up in the app's store and, when the config names a webhook
-- (`values.signupWebhook`, its origin listed in `httpAllowList`), posts it there.
function hooks.recordSignup(event)
  if context.user ~= nil then error("recordSignup is a trigger, not a callable function") end
  local signup = { user = event.user.id, provider = event.providers[1], email = event.user.data.email }
  context.store.set("signup:" .. event.user.id, signup)
  local webhook = context.values.signupWebhook
  if webhook then
    local answer = context.http.post{ url = webhook, body = signup }
    -- An error makes the trigger try again later (a run is at least once: the store write is
    -- the same every time).
    if answer.status >= 300 then error("the sign-up webhook answered " .. answer.status) end
  end
end

-- Callable: the caller's sign-up record, as recordSignup wrote it (nil before it ran).
function hooks.mySignup()
  return context.store.get("signup:" .. context.user.id)
end

return hooks
