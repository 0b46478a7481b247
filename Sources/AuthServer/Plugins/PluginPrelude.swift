// SPDX-License-Identifier: Apache-2.0
/// The Lua side of the plugin host, run once in every plugin state.
///
/// It receives the host functions and returns two functions: `loadplugin(source, chunkname,
/// filename)`, which runs one plugin file in an environment of its own and returns the names
/// it exports, and `invoke(name, ...)`, which calls an exported function with a fresh
/// per-call cache behind `context.values` and `context.user`.
///
/// Each file gets its own `_ENV` whose misses fall through to the shared sandbox globals, so
/// a plugin that assigns a global (even `string` or `context`) changes only its own view; its
/// `load` compiles chunks against that `_ENV` too, so no file reaches the state's real globals.
/// `context`, its sub-tables and `ejson` are read-only proxies.
enum PluginPrelude {
    static let source = #"""
        local host = ...
        local ejson = ejson
        local readonly, setmetatable, error, type, next, load, select = host.readonly, setmetatable, error, type, next, load, select

        local cache = {}
        local fixed = {
          log = host.log,
          now = host.now,
          email = readonly({ send = host.send }, "context.email"),
          store = readonly({ get = host.get, set = host.set, delete = host.delete }, "context.store"),
          users = readonly({ setCustomData = host.setCustomData }, "context.users"),
          http = readonly({
            get = function(request) return host.http("GET", request) end,
            post = function(request) return host.http("POST", request) end,
            put = function(request) return host.http("PUT", request) end,
            delete = function(request) return host.http("DELETE", request) end,
          }, "context.http"),
        }
        local current = host.current
        local context = readonly(setmetatable({}, {
          __index = function(_, key)
            local v = fixed[key]
            if v ~= nil then return v end
            if key == "values" or key == "user" then
              v = cache[key]
              if v == nil then
                v = current(key)
                cache[key] = v
              end
              return v
            end
          end,
        }), "context")

        local base = {}
        for k, v in next, _G do base[k] = v end
        base.context = context
        base.ejson = readonly(ejson, "ejson")
        base._G = nil

        local functions = {}

        local function loadplugin(source, chunkname, filename)
          local env = setmetatable({}, { __index = base, __metatable = false })
          env._G = env
          -- load without an env compiles against this file's env, never the state's real globals.
          env.load = function(chunk, name, mode, ...)
            if select("#", ...) == 0 then return load(chunk, name, mode, env) end
            return load(chunk, name, mode, ...)
          end
          local chunk, message = load(source, chunkname, "t", env)
          if not chunk then error(message, 0) end
          local exported = chunk()
          local kind = type(exported)
          local names = {}
          if kind == "function" then
            functions[filename] = exported
            names[1] = filename
          elseif kind == "table" then
            for name, fn in next, exported do
              if type(name) == "string" and type(fn) == "function" then
                functions[name] = fn
                names[#names + 1] = name
              end
            end
            if #names == 0 then error(chunkname:sub(2) .. " returns a table with no functions in it", 0) end
          else
            error(chunkname:sub(2) .. " must return a function or a table of functions, not " .. kind, 0)
          end
          return names
        end

        local function invoke(name, ...)
          cache = {}
          return functions[name](...)
        end

        return loadplugin, invoke
        """#
}
