// SPDX-License-Identifier: Apache-2.0
/// The Lua that a spec file's process runs: busted's own runner, and a helper that writes the
/// file's counts where `authsh test` reads them.
enum SpecRunnerScripts {
    /// busted's command-line runner, as `/usr/bin/busted` starts it: it reads its options
    /// from `arg` and exits with the number of failures and errors.
    static let runner = """
        require 'busted.runner'({ standalone = false })

        """

    /// A busted helper (`--helper`, with the results file as `-Xhelper`): at the end of the
    /// run it writes the file's results as JSON, `{successes, failures, errors, pendings,
    /// duration}`, each result `{name, file, line, message}`. (busted's own `-o json` prints
    /// nothing when a result holds a function or userdata, which dkjson refuses.)
    static let helper = """
        local busted = require 'busted'
        local results = require 'busted.outputHandlers.base'()
        results:subscribe({ language = 'en' })
        local file = arg[1]

        local function quoted(s)
          return '"' .. tostring(s):gsub('[%c"\\\\]', function(c)
            return string.format('\\\\u%04x', c:byte())
          end) .. '"'
        end

        local function list(entries)
          local out = {}
          for _, r in ipairs(entries) do
            local trace = r.trace or {}
            local message = r.message
            if message ~= nil and type(message) ~= 'string' then message = tostring(message) end
            out[#out + 1] = '{"name":' .. quoted(r.name or '') .. ',"file":' .. quoted(trace.short_src or '')
              .. ',"line":' .. math.tointeger(tonumber(trace.currentline) or 0)
              .. ',"message":' .. (message and quoted(message) or 'null') .. '}'
          end
          return '[' .. table.concat(out, ',') .. ']'
        end

        busted.subscribe({ 'exit' }, function()
          local out = assert(io.open(file, 'w'))
          out:write('{"successes":', list(results.successes), ',"failures":', list(results.failures),
            ',"errors":', list(results.errors), ',"pendings":', list(results.pendings),
            ',"duration":', string.format('%.6f', results.getDuration()), '}\\n')
          out:close()
          return nil, true
        end)

        """

    /// Auth errors as luassert's own: `assert.auth_error(code, fn)`, `assert.has_error`
    /// matching an auth error by its code (`"InvalidPassword"`), its code and message
    /// (`"InvalidPassword: invalid username/password"`) or a table of its fields
    /// (`{code = ..., status = 401}`), and failure messages that print one as
    /// `(AuthError) code: message (HTTP status)`.
    static let assertions = #"""
        local assert = require 'luassert'
        local say = require 'say'
        local namespaces = require 'luassert.namespaces'

        -- An auth error's fields, or nil for any other value.
        local function authError(value)
          if type(value) ~= 'userdata' then return nil end
          local ok, code = pcall(function() return value.code end)
          if not ok or type(code) ~= 'string' then return nil end
          return { code = code, message = value.message, status = value.status }
        end

        local function describe(e)
          return string.format('(AuthError) %s: %s%s', e.code, e.message or '',
            e.status and string.format(' (HTTP %d)', e.status) or '')
        end

        assert:add_formatter(function(value)
          local e = authError(value)
          return e and describe(e) or nil
        end)

        local function matches(e, expected)
          if type(expected) == 'string' then
            return expected == e.code or expected == e.code .. ': ' .. (e.message or '')
          elseif type(expected) == 'table' then
            for key, value in pairs(expected) do
              if e[key] ~= value then return false end
            end
            return true
          end
          return false
        end

        local original = namespaces.assertion['error']
        local function has_error(state, arguments, level)
          local func, expected = arguments[1], arguments[2]
          if type(func) ~= 'function' and not (getmetatable(func) or {}).__call then
            return original.callback(state, arguments, (level or 1) + 1)
          end
          local ok, err = pcall(func)
          local e = not ok and authError(err)
          if not e or expected == nil then
            local again = { function() if not ok then error(err, 0) end end, expected, arguments[3], n = arguments.n }
            return original.callback(state, again, (level or 1) + 1)
          end
          arguments.nofmt = {}
          arguments.n = 2
          arguments[1] = err
          arguments[2] = expected
          return matches(e, expected), { err, expected }
        end
        assert:register('assertion', 'error', has_error, original.positive_message, original.negative_message)

        say:set('assertion.auth_error.positive', 'Expected an auth error %s, but got:\n%s')
        say:set('assertion.auth_error.negative', 'Expected no auth error %s, but got:\n%s')
        local function auth_error(state, arguments, level)
          local expected, func = arguments[1], arguments[2]
          assert(type(func) == 'function', 'auth_error: the second argument must be a function', (level or 1) + 1)
          local ok, err = pcall(func)
          arguments.nofmt = { type(expected) ~= 'table', ok }
          arguments.n = 2
          arguments[1] = type(expected) == 'table' and expected or tostring(expected)
          arguments[2] = ok and '(no error)' or err
          local e = not ok and authError(err)
          return e and (expected == nil or matches(e, expected)) or false, { err }
        end
        assert:register('assertion', 'auth_error', auth_error, 'assertion.auth_error.positive', 'assertion.auth_error.negative')

        """#

    /// `auth.test`, the fixtures a spec file gets: confirmed email/password users, the last
    /// mail to an address, a wipe, the server's clock.
    static let fixtures = #"""
        local fixtures = {}
        local made = 0

        --- A confirmed email/password user, logged in: `auth.test.user{email = ..., password = ...}`
        --- (both optional: a new address and `password1`). Returns the User and its password.
        function fixtures.user(options)
          options = options or {}
          made = made + 1
          local email = options.email or string.format('user%d-%d@example.com', made, math.random(1, 1 << 30))
          local password = options.password or 'password1'
          register(email, password)
          local mail = fixtures.lastMail(email, 'confirm')
          assert(mail, 'auth.test.user: no confirmation mail to ' .. email)
          confirm(mail)
          return login(credentials.emailPassword(email, password)), password
        end

        --- `n` users made by `auth.test.user`, in a list.
        function fixtures.users(n, options)
          local list = {}
          for i = 1, n do list[i] = fixtures.user(options and { password = options.password }) end
          return list
        end

        --- The newest mail to `address` (of `kind`, when given), or nil.
        function fixtures.lastMail(address, kind)
          local mails = auth.dev.outbox{ email = address, kind = kind }
          return mails[#mails]
        end

        --- Deletes every user of the app on the server.
        function fixtures.wipe() auth.dev.wipeUsers() end

        --- Moves the server's clock forward by `seconds`.
        function fixtures.advanceClock(seconds) return auth.dev.advanceClock(seconds) end

        auth.test = fixtures

        """#
}
