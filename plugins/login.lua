-- SPDX-License-Identifier: Apache-2.0
-- Custom-function login: the client's payload arrives as a table; return the user's
-- external id (a string) or {id = ..., name = ...}. error("...") refuses the login, and the
-- client gets 401 AuthError with that message.
--
-- From authsh:  login(credentials.customFunction{ username = "ada" })
--
-- Because this file exports `login`, a server started without --config enables the
-- custom-function provider with it.

return function(payload)
  local username = payload.username
  if type(username) ~= "string" or not username:match("^[%w_.-]+$") or #username > 64 then
    error("username must be 1 to 64 letters, digits, '_', '.' or '-'")
  end
  local blocked = context.values.blockedUsernames or {}
  for _, name in ipairs(blocked) do
    if name == username:lower() then error("user " .. username .. " may not log in") end
  end
  return { id = "user:" .. username:lower(), name = username }
end
