-- SPDX-License-Identifier: Apache-2.0
-- plugins/migrate.lua: lazy migration from an old system, one login at a time. An app turns it
-- on in its config:
--   "hooks": {"migrateUser": "fromOldSystem"},
--   "values": {"oldSystemCheckURL": "https://old.example.com/api/check-password"},
--   "httpAllowList": ["https://old.example.com"]
-- At a password login of an email no account has, the old system's check gets the email and
-- the password; a 200 brings the user in with that password (rehashed with Argon2id), a 401 or
-- 404 refuses the login as any unknown email, anything else fails the login (fail closed).
-- Its spec: scripts/recipes/spec/migrate_spec.lua (authsh test --plugins plugins ...).
local migrate = {}

function migrate.fromOldSystem(event)
  if context.user ~= nil then error("fromOldSystem is a hook, not a callable function") end
  local url = context.values.oldSystemCheckURL
  if url == nil then return nil end
  -- Never log event.password.
  local reply = context.http.post{ url = url, body = { email = event.email, password = event.password } }
  if reply.status == 401 or reply.status == 404 then return nil end
  if reply.status ~= 200 then error("the old system answered " .. reply.status) end
  local found = reply.body ~= "" and ejson.decode(reply.body) or {}
  return {
    data = { name = found.name },
    custom_data = { migratedFrom = "old-system", plan = found.plan },
    emailVerified = found.verified == true,
  }
end

return migrate
