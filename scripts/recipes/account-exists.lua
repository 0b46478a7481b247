-- SPDX-License-Identifier: Apache-2.0
-- account-exists.lua: one account per email across Google, GitHub and email/password.
--
-- Firebase's "account exists with different credential" flow, end to end. A person has an
-- email/password account and signs in with Google, then with GitHub, using the same verified
-- email. With `oneAccountPerEmail` (on for the embedded server's app) each new provider's
-- sign-in fails with AccountExistsWithDifferentCredential, carrying the email, the providers
-- the account uses and a pending credential. The script asks which providers the email signs
-- in with, signs in with one of them, and links the pending credential: from then on Google
-- and GitHub sign in to the same account. An unverified email never joins it.
--
-- The dev identity provider plays Google and GitHub (`as` approves as an identity).
--
-- Run: authsh scripts/recipes/account-exists.lua

local email = ("grace+%d@example.com"):format(math.random(1 << 53))
local password = "s3cret-pass"

register{ email = email, password = password }
confirm(outbox{ email = email, kind = "confirm" }[1])
local owner = login(credentials.emailPassword(email, password))
print("email/password account " .. owner.id)
logout()

for _, provider in ipairs{ "google", "github" } do
  -- The sign-in fails: the email belongs to an account that uses other providers.
  local ok, err = pcall(signIn, provider, { as = { email = email, name = "Grace" } })
  assert(not ok, provider .. " should not make a second account for " .. email)
  assert(err.code == "AccountExistsWithDifferentCredential", "expected the conflict, got " .. tostring(err))
  assert(err.email == email, "the conflict names the email: " .. tostring(err.email))
  assert(err.credential and err.credential.provider == "oauth2-" .. provider, "the conflict carries a pending credential")
  print(("%s: %s already has an account (providers: %s)"):format(provider, err.email, table.concat(err.providers, ", ")))

  -- Which providers does the email sign in with? Sign in with the first, then link.
  local methods = auth.signInMethods(email)
  assert(#methods >= 1 and methods[1] == "local-userpass", "the account signs in with email/password first")
  local user = login(credentials.emailPassword(email, password))
  assert(user.id == owner.id, "the email/password login is the account's")
  linkIdentity(err.credential)
  print(("linked %s: identities %d"):format(err.credential.provider, #user.identities))

  -- A pending credential is used once.
  local again, used = pcall(linkIdentity, err.credential)
  assert(not again and used.code == "InvalidParameter", "a pending credential links once: " .. tostring(used))
  logout()
end

-- Google and GitHub now sign in to the same account.
for _, provider in ipairs{ "google", "github" } do
  local user = signIn(provider, { as = { email = email, name = "Grace" } })
  assert(user.id == owner.id, provider .. " should sign in to the account")
  logout()
end
local methods = auth.signInMethods(email)
assert(table.concat(methods, ",") == "local-userpass,oauth2-google,oauth2-github", "methods: " .. table.concat(methods, ","))
print("sign-in methods of " .. email .. ": " .. table.concat(methods, ", "))

-- An unverified email proves nothing: it gets an account of its own, never the one that
-- holds the address.
local victim = email:gsub("@", "+victim@")
register{ email = victim, password = password }
confirm(outbox{ email = victim, kind = "confirm" }[1])
local stranger = signIn("github", { as = { email = victim, name = "Mallory", verified = false } })
assert(#stranger.identities == 1 and stranger.identities[1].providerType == "oauth2-github",
  "an unverified GitHub email makes a new user, with no conflict")
logout()
local holder = login(credentials.emailPassword(victim, password))
assert(holder.id ~= stranger.id and #holder.identities == 1, "the account of the address is untouched")
logout()

print("ok: account-exists")
