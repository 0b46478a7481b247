-- SPDX-License-Identifier: Apache-2.0
-- github.lua: sign in with GitHub, call GitHub's API with the token, sign in again.
--
-- On the embedded server (or any server in dev mode) the dev identity provider plays
-- GitHub: the whole OAuth protocol runs (authorize, code, token exchange with PKCE, GitHub's
-- user API), with `as` approving as an identity instead of a person in a browser. Against a
-- server configured with the real GitHub, drop `as` and a browser opens.
--
-- Run: authsh scripts/recipes/github.lua

local email = "octo.cat@example.com"

local user = signIn("github", { as = { email = email, name = "Octo Cat" } })
assert(user.identities[1].providerType == "oauth2-github", "expected a GitHub identity")
assert(user.profile.email == email, "a verified GitHub email goes into the profile")
print(("signed in with GitHub: %s (%s)"):format(user.profile.name, user.id))

-- The provider's access token calls the provider's API, as Firebase's docs show for
-- GitHub's /user.
local token = assert(user.providerTokens and user.providerTokens.accessToken, "the server returns GitHub's token")
local status, _, body = auth.http{
  url = auth.dev.idp.githubAPI .. "/user",
  headers = { Authorization = "Bearer " .. token, Accept = "application/vnd.github+json" },
}
assert(status == 200, "GitHub's /user answered " .. status)
local me = auth.json.decode(body)
assert(me.name == "Octo Cat", "GitHub says the name is " .. tostring(me.name))
print(("GitHub /user: login %s, id %s"):format(me.login, math.tointeger(me.id) or me.id))

logout()
assert(user.state == "loggedOut", "expected loggedOut, got " .. user.state)

-- Signing in again with the same GitHub account lands on the same user.
local again = signIn("github", { as = { email = email, name = "Octo Cat" } })
assert(again.id == user.id, "the same GitHub account should sign in to the same user")
print("signed in again: same user " .. again.id)

print("ok: github")
