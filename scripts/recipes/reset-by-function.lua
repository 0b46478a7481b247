-- SPDX-License-Identifier: Apache-2.0
-- reset-by-function.lua: reset a password through a reset function (a server plugin).
--
-- Turns on the reset function `reset` of plugins/reset.lua, which asks a security question:
-- the right answer changes the password at once, a wrong one is refused, and no answer mails
-- a code (token and tokenId) to finish the reset with. The reset function is turned off again
-- at the end, even when something fails, since while it is on the server refuses reset emails.
--
-- Run: authsh scripts/recipes/reset-by-function.lua

local function useResetFunction(on)
  local config = auth.dev.config{
    providers = { ["local-userpass"] = { runResetFunction = on, resetFunctionName = "reset" } },
  }
  assert(config.providers["local-userpass"].runResetFunction == on, "the server config did not change")
end

local function main()
  local email = ("carol+%d@example.com"):format(math.random(1 << 53))
  local function logsIn(password) -- true when the password logs in
    return (pcall(login, credentials.emailPassword(email, password)))
  end

  -- An account to work with: register, confirm, log in, and choose a security answer.
  register{ email = email, password = "first-pass" }
  local confirmations = outbox{ email = email, kind = "confirm" }
  confirm(confirmations[#confirmations])
  local user = login(credentials.emailPassword(email, "first-pass"))
  assert(user.functions.setSecurityAnswer("Blue"), "setSecurityAnswer should succeed")
  print(("%s (user id %s) chose a security answer"):format(email, user.id))

  -- Right answer (the plugin ignores case): the new password works at once.
  -- args are the extra arguments of the reset function: here one table, {answer = ...}.
  callResetFunction{ email = email, password = "second-pass", args = { { answer = "blue" } } }
  assert(login(credentials.emailPassword(email, "second-pass")) == user, "the new password should log in the same user")
  print("right answer: password changed, the new one logs in")

  -- Wrong answer: refused, and the password stays as it was.
  local ok, err = pcall(callResetFunction, { email = email, password = "third-pass", args = { { answer = "red" } } })
  assert(not ok, "a wrong answer should be refused")
  assert(err.message:find("failed to reset password", 1, true), "unexpected error: " .. tostring(err))
  assert(logsIn("second-pass"), "a refused reset should leave the password alone")
  print(("wrong answer: refused with %s (%s)"):format(err.code, err.message))

  -- No answer: the reset is pending and the plugin mails a code.
  callResetFunction{ email = email, password = "third-pass", args = {} }
  assert(not logsIn("third-pass"), "a pending reset should not change the password yet")
  local mails = outbox{ email = email, kind = "plugin" }
  assert(#mails == 1, "expected one mail from the plugin, got " .. #mails)
  local body = mails[#mails].body
  local token, tokenId = body:match("token=(%S+)"), body:match("tokenId=(%S+)")
  assert(token and tokenId, "the plugin mail should hold token= and tokenId= lines:\n" .. body)
  print("no answer: pending, the plugin mailed a reset code")

  resetPassword{ token = token, tokenId = tokenId, password = "third-pass" }
  assert(login(credentials.emailPassword(email, "third-pass")) == user, "the mailed code should set the password")
  print("the mailed code completed the reset")
end

useResetFunction(true)
local ok, err = pcall(main)
useResetFunction(false)
if not ok then error(err, 0) end
print("reset function turned off again")

print("ok: reset-by-function")
