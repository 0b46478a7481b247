-- SPDX-License-Identifier: Apache-2.0
-- Reset function, with a security question. The client calls reset/call with the new
-- password and, as its first argument, {answer = "..."}:
--
--   right answer  success: the password is changed now
--   wrong answer  fail: 400 `failed to reset password for user "<email>"`
--   no answer     pending: a code is mailed; POST .../local-userpass/reset with that token,
--                 tokenId and the new password completes the reset
--
-- A user sets the answer beforehand by calling the function `setSecurityAnswer` (below)
-- while logged in. Answers are kept in context.store, the app's plugin key-value store.
--
-- Config: "local-userpass": { "runResetFunction": true, "resetFunctionName": "reset" }

local function normalize(answer)
  return (answer:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""):lower())
end

local function reset(request, args)
  -- Only the server calls a role function; through functions/call (context.user is set) a
  -- caller would choose the username and could have codes mailed to anyone, so refuse.
  if context.user ~= nil then error("reset is not a callable function") end
  local stored = context.store.get("answer:" .. request.username)
  if args == nil or args.answer == nil then
    context.email.send {
      to = request.username,
      subject = "Your password reset code",
      body = ("token=%s\ntokenId=%s\n"):format(request.token, request.tokenId),
    }
    return { status = "pending" }
  end
  if stored ~= nil and type(args.answer) == "string" and normalize(args.answer) == stored then
    return { status = "success" }
  end
  context.log("wrong security answer for", request.username)
  return { status = "fail" }
end

-- Callable: functions/call {name = "setSecurityAnswer", arguments = ["blue"]}.
local function setSecurityAnswer(answer)
  if type(answer) ~= "string" or #answer < 2 or #answer > 200 then
    error("the answer must be a string of 2 to 200 characters")
  end
  local email = context.user.data.email
  if email == nil then error("only email/password users have a security question") end
  context.store.set("answer:" .. email, normalize(answer))
  return true
end

return { reset = reset, setSecurityAnswer = setSecurityAnswer }
