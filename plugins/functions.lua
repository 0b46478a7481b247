-- SPDX-License-Identifier: Apache-2.0
-- Callable functions: any function a plugin exports can be called by a logged-in user with
-- POST {app}/functions/call {name, arguments}, or from authsh as user.functions.NAME(...).
-- Arguments arrive as Lua values; the return value goes back as EJSON.

local functions = {}

-- greet("Ada") -> "Hello, Ada!"
function functions.greet(name)
  return ("Hello, %s!"):format(name or "world")
end

-- sum(1, 2, 3.5) -> 6.5 (integers stay integers: sum(1, 2) -> 3)
function functions.sum(...)
  local total = 0
  for i = 1, select("#", ...) do
    local n = select(i, ...)
    if type(n) ~= "number" then error(("argument %d is not a number"):format(i)) end
    total = total + n
  end
  return total
end

-- whoami() -> {id = ..., identities = {"anon-user", ...}}
function functions.whoami()
  local kinds = {}
  for i, identity in ipairs(context.user.identities) do kinds[i] = identity.provider_type end
  return { id = context.user.id, identities = kinds }
end

-- visit() counts this user's calls in the app's key-value store and puts the count in the
-- user's custom data, which their next access token carries as `user_data`.
function functions.visit()
  local key = "visits:" .. context.user.id
  local visits = (context.store.get(key) or 0) + 1
  context.store.set(key, visits)
  context.users.setCustomData(context.user.id, { visits = visits, lastVisit = context.now() })
  return visits
end

return functions
