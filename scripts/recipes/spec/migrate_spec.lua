-- SPDX-License-Identifier: Apache-2.0
-- migrate_spec.lua: the spec of plugins/migrate.lua's migrateUser hook (lazy migration).
--
-- Run: authsh test --plugins plugins scripts/recipes/spec/migrate_spec.lua
--
-- The first tests run the hook alone, in its real sandbox, with the old system's answers
-- given (auth.dev.plugin); the last one turns the hook on and logs in for real, with the dev
-- server's webhook sink playing an old system that accepts every password.
local event = { email = "ada@example.com", password = "old-secret", app = "local", address = "127.0.0.1", api = "appServices" }
local values = { oldSystemCheckURL = "https://old.example.com/api/check-password" }

local function oldSystem(status, body)
  return { values = values, http = { { method = "POST", url = values.oldSystemCheckURL, status = status, body = body } } }
end

describe("migrateUser: fromOldSystem", function()
  -- The app's httpAllowList holds for a unit run too: the old system's origin is listed.
  setup(function() auth.dev.config{ httpAllowList = { "https://old.example.com" } } end)

  it("brings in a user the old system knows, with its profile", function()
    local run = auth.dev.plugin("fromOldSystem", { event }, oldSystem(200, '{"name": "Ada", "verified": true, "plan": "pro"}'))
    assert.is_nil(run.error)
    assert.are.same({ name = "Ada" }, run.result.data)
    assert.are.same({ migratedFrom = "old-system", plan = "pro" }, run.result.custom_data)
    assert.is_true(run.result.emailVerified)
    -- The old system got the email and the password, and nothing was logged.
    assert.are.equal(1, #run.http)
    assert.are.same({ email = "ada@example.com", password = "old-secret" }, auth.ejson.decode(run.http[1].body))
    assert.are.equal(0, #run.logs)
  end)

  it("refuses what the old system refuses", function()
    for _, status in ipairs{ 401, 404 } do
      local run = auth.dev.plugin("fromOldSystem", { event }, oldSystem(status, ""))
      assert.is_nil(run.error)
      assert.is_nil(run.result)
    end
  end)

  it("fails closed when the old system fails", function()
    local run = auth.dev.plugin("fromOldSystem", { event }, oldSystem(503, "busy"))
    assert.is_not_nil(run.error)
    assert.truthy(run.error.message:find("the old system answered 503", 1, true))
  end)

  it("asks nothing when no old system is configured", function()
    local run = auth.dev.plugin("fromOldSystem", { event }, { values = {} })
    assert.is_nil(run.result)
    assert.are.equal(0, #run.http)
  end)

  it("logs a person in through the old system once, then the account is authsh's", function()
    local sink = auth.dev.webhookURL()
    auth.dev.config{
      hooks = { migrateUser = "fromOldSystem" },
      httpAllowList = { sink:match("^(https?://[^/]+)") },
      values = { oldSystemCheckURL = sink },
    }
    local user = login(credentials.emailPassword("grace@example.com", "from-before"))
    assert.are.equal("grace@example.com", user.profile.email)
    assert.are.equal("old-system", user.customData.migratedFrom)
    local checks = auth.dev.webhooks()
    assert.are.equal("grace@example.com", auth.ejson.decode(checks[#checks].body).email)

    -- From now on the password is authsh's (an Argon2id hash of the one the old system took):
    -- the hook is not asked again, and another password is refused here.
    assert.auth_error("InvalidPassword", function() login(credentials.emailPassword("grace@example.com", "another")) end)
    local again = login(credentials.emailPassword("grace@example.com", "from-before"))
    assert.are.equal(user.id, again.id)
    assert.are.equal(#checks, #auth.dev.webhooks())
  end)
end)
