-- SPDX-License-Identifier: Apache-2.0
-- api-keys.lua: API keys, a user's credentials for servers and scripts.
--
-- A logged-in email/password user creates a key, lists it, disables it (the key no longer
-- logs in), enables it again, logs in with it as the same user, and deletes it.
-- (Anonymous users cannot have API keys.)
--
-- Run: authsh scripts/recipes/api-keys.lua

local email = ("erin+%d@example.com"):format(math.random(1 << 53))
local password = "s3cret-pass"

register{ email = email, password = password }
local mails = outbox{ email = email, kind = "confirm" }
confirm(mails[#mails])
local user = login(credentials.emailPassword(email, password))
print(("logged in as %s (user id %s)"):format(email, user.id))

local keys = user.apiKeys
local created = keys:create("ci-bot")
assert(created.id and created.key, "a new key should come with its id and its secret")
assert(created.name == "ci-bot" and created.disabled == false, "unexpected name or state of the new key")
print(("created key %q (id %s); its secret is shown only now"):format(created.name, created.id))

local list = keys:list()
assert(#list == 1 and list[1].id == created.id, "the list should hold the new key")
assert(list[1].key == nil, "listed keys do not carry their secret")
print(("listed %d key: %q"):format(#list, list[1].name))

keys:disable(created.id)
assert(keys:fetch(created.id).disabled == true, "the key should be disabled")
local ok, err = pcall(login, credentials.apiKey(created.key))
assert(not ok and err.code == "AuthError", "a disabled key should not log in: " .. tostring(err))
print("disabled: logging in with the key fails: " .. tostring(err))

keys:enable(created.id)
assert(keys:fetch(created.id).disabled == false, "the key should be enabled")
local viaKey = login(credentials.apiKey(created.key))
assert(viaKey == user, "an API key logs in as the user who owns it")
print("enabled: the key logs in as user " .. viaKey.id)

-- Deleting (or disabling) a key ends the sessions opened with it, so the user logs in
-- with the password again before deleting the key.
login(credentials.emailPassword(email, password))

keys:delete(created.id)
assert(#keys:list() == 0, "no key should be left")
ok, err = pcall(keys.fetch, keys, created.id)
assert(not ok and err.code == "APIKeyNotFound", "a deleted key should be gone: " .. tostring(err))
print("deleted: fetching it fails: " .. tostring(err))

print("ok: api-keys")
