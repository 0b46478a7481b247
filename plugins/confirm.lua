-- SPDX-License-Identifier: Apache-2.0
-- Confirmation function: decides whether a newly registered email/password user is confirmed.
-- Called with {username, token, tokenId}; returns {status = "success" | "pending" | "fail"}.
--
--   success  the account is confirmed now
--   pending  the account waits for POST .../local-userpass/confirm with token and tokenId
--   fail     no account is created; register answers 400 `failed to confirm user "<email>"`
--
-- This one confirms addresses of the domains in the app's values (`confirmDomains`, default
-- example.com) at once, refuses the domains in `refuseDomains`, and mails everyone else a
-- link to confirm themselves.
--
-- Config: "local-userpass": { "runConfirmationFunction": true, "confirmationFunctionName": "confirm" }

local function domain(email)
  return (email:match("@([^@]+)$") or ""):lower()
end

local function listed(list, value)
  for _, item in ipairs(list or {}) do
    if item:lower() == value then return true end
  end
  return false
end

return function(request)
  -- Only the server calls a role function with a user's request; through functions/call
  -- (context.user is set) it could mail anyone, so refuse.
  if context.user ~= nil then error("confirm is not a callable function") end
  local d = domain(request.username)
  if listed(context.values.refuseDomains, d) then
    context.log("refused a registration from", d)
    return { status = "fail" }
  end
  if listed(context.values.confirmDomains or { "example.com" }, d) then
    return { status = "success" }
  end
  local base = context.values.confirmUrl or "https://example.com/confirm"
  context.email.send {
    to = request.username,
    subject = "Confirm your account",
    body = ("Open %s?token=%s&tokenId=%s to confirm your account."):format(base, request.token, request.tokenId),
  }
  return { status = "pending" }
end
