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
-- fails), and records the sign-up in the app's store.
function hooks.recordSignup(event)
  if context.user ~= nil then error("recordSignup is a trigger, not a callable function") end
  context.store.set("signup:" .. event.user.id, {
    provider = event.providers[1], email = event.user.data.email, at = event.time,
  })
end

-- Callable: the caller's sign-up record, as recordSignup wrote it (nil before it ran).
function hooks.mySignup()
  return context.store.get("signup:" .. context.user.id)
end

return hooks
