// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// `functions/call` and the `context` table, through the HTTP API.
@Suite(.timeLimit(.minutes(5))) struct PluginCallTests {
    static let echo = """
        local m = {}
        function m.echo(...) return {...} end
        function m.first(x) return x end
        function m.types(...)
          local out = {}
          for i = 1, select("#", ...) do
            local v = select(i, ...)
            out[i] = type(v) == "number" and math.type(v) or (type(v) == "userdata" and v.type or type(v))
          end
          return out
        end
        function m.nothing() end
        function m.fail() error("the answer is not 42") end
        function m.failTable() error({ reason = "structured" }) end
        function m.values() return context.values end
        function m.me() return context.user end
        function m.now() return context.now() end
        function m.counter()
          local n = (context.store.get("n") or 0) + 1
          context.store.set("n", n)
          return n
        end
        function m.forget() context.store.delete("n"); return context.store.get("n") == nil end
        function m.tag(data) context.users.setCustomData(context.user.id, data); return true end
        function m.say(...) context.log("hello", 42, {a = 1}, ...) return true end
        function m.tagOther(id) context.users.setCustomData(id, { x = 1 }); return true end
        return m
        """

    @Test func argumentsAndResultsKeepTheirEJSONTypes() async throws {
        let dir = try PluginDirectory(["m.lua": Self.echo])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let oid = try #require(ObjectId(hex: "5f1d7c3a2b4e6f8091a2b3c4"))
            let args: [EJSON] = [
                .int32(7), .int64(1 << 40), .double(2.5), .double(3.0), .string("ü"), .bool(true),
                .null, .objectId(oid), .date(1_700_000_000_123), .array([1, 2]), ["a": 1],
            ]
            let types = try await c.function("types", args, token: token)
            #expect(types.status == 200)
            #expect(
                types.body
                    == .array([
                        "integer", "integer", "float", "float", "string", "boolean", "null",
                        "objectId", "date", "table", "table",
                    ]))
            let echoed = try await c.function("echo", args, token: token)
            // Back out: small integers are int32, big ones int64, floats stay doubles (3.0 too),
            // ObjectId and Date come back exactly, null stays in place.
            #expect(
                echoed.body
                    == .array([
                        .int32(7), .int64(1 << 40), .double(2.5), .double(3.0), .string("ü"), .bool(true),
                        .null, .objectId(oid), .date(1_700_000_000_123), .array([.int32(1), .int32(2)]),
                        ["a": .int32(1)],
                    ]))
            let binary = EJSON.binary(subtype: 4, bytes: Array(0..<16))
            #expect(try await c.function("first", [binary], token: token).body == binary)
            #expect(try await c.function("nothing", token: token).body == .null)
        }
    }

    @Test func errorsHaveTheWireCodes() async throws {
        let dir = try PluginDirectory(["m.lua": Self.echo])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let missing = try await c.function("nope", token: token)
            #expect(missing.status == 404 && missing.code == "FunctionNotFound" && missing.message == "function not found: 'nope'")
            let raised = try await c.function("fail", token: token)
            #expect(raised.status == 400 && raised.code == "FunctionExecutionError")
            #expect(raised.message == "m.lua:13: the answer is not 42")
            let table = try await c.function("failTable", token: token)
            #expect(table.status == 400 && table.code == "FunctionExecutionError")
            let anonymous = try await c.call(.post, Routes.functionsCall("local"), json: ["name": "echo", "arguments": []])
            #expect(anonymous.status == 401 && anonymous.code == "MissingAuthReq")
            let badArgs = try await c.call(.post, Routes.functionsCall("local"), json: ["name": "echo", "arguments": 5], token: token)
            #expect(badArgs.status == 400 && badArgs.code == "InvalidParameter")
            let noName = try await c.call(.post, Routes.functionsCall("local"), json: ["arguments": []], token: token)
            #expect(noName.status == 400 && noName.code == "MissingParameter")
        }
    }

    @Test func contextShowsValuesUserAndClock() async throws {
        let dir = try PluginDirectory(["m.lua": Self.echo])
        let config = TestServer.withPlugins(dir.path) { $0.values = ["supportEmail": "help@example.com", "limit": .int64(3)] }
        try await TestServer.run(config) { (c: Client) async throws in
            try await c.registerConfirmed("ada@example.com")
            let login = try await c.emailLogin("ada@example.com", "password1")
            let token = try #require(login["access_token"])
            let values = try await c.function("values", token: token)
            #expect(values.body == ["limit": .int32(3), "supportEmail": "help@example.com"])
            let me = try await c.function("me", token: token).body
            #expect(me["id"]?.stringValue == login["user_id"])
            #expect(me["type"] == "normal")
            #expect(me["data"]?["email"] == "ada@example.com")
            #expect(me["identities"]?.arrayValue?.first?["provider_type"] == "local-userpass")
            let now = try await c.function("now", token: token)
            let before = try #require(now.body.integerValue, "\(now)")
            try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 600])
            let after = try #require(try await c.function("now", token: token).body.integerValue)
            #expect(after - before >= 600 && after - before < 660)
        }
    }

    @Test func theStorePersistsPerApp() async throws {
        let dir = try PluginDirectory(["m.lua": Self.echo])
        let config = TestServer.configuration(apps: [AppConfiguration(id: "a"), AppConfiguration(id: "b")], plugins: dir.path)
        try await TestServer.run(config) { (c: Client) async throws in
            let a = c.inApp("a"), b = c.inApp("b")
            let ta = try await a.anonymousToken(), tb = try await b.anonymousToken()
            #expect(try await a.function("counter", token: ta).body == .int32(1))
            #expect(try await a.function("counter", token: ta).body == .int32(2))
            // Another app has its own store.
            #expect(try await b.function("counter", token: tb).body == .int32(1))
            #expect(try await a.function("forget", token: ta).body == true)
            #expect(try await a.function("counter", token: ta).body == .int32(1))
            // A token of app a does not call app b's functions.
            let cross = try await b.function("counter", token: ta)
            #expect(cross.status == 401 && cross.code == "InvalidSession")
        }
    }

    @Test func customDataReachesTheNextAccessToken() async throws {
        let dir = try PluginDirectory(["m.lua": Self.echo])
        let config = TestServer.configuration(apps: [AppConfiguration(id: "local"), AppConfiguration(id: "other")], plugins: dir.path)
        try await TestServer.run(config) { (c: Client) async throws in
            let login = try await c.anonymous()
            let token = try #require(login["access_token"]), refresh = try #require(login["refresh_token"])
            #expect(try await c.function("tag", [["plan": "pro", "seats": .int32(5)]], token: token).body == true)
            let access = try #require(try await c.refresh(refresh)["access_token"])
            let claims = try SessionTests.claims(access)
            // JWT claims are plain JSON: the integer comes back as an int64.
            #expect(claims["user_data"]?["plan"] == "pro" && claims["user_data"]?["seats"]?.integerValue == 5)
            // A user of another app cannot be touched.
            let stranger = try #require(try await c.inApp("other").anonymous()["user_id"])
            let refused = try await c.function("tagOther", [.string(stranger)], token: token)
            #expect(refused.status == 400 && refused.code == "FunctionExecutionError")
            #expect(refused.message?.contains("no user '\(stranger)' in this app") == true)
        }
    }

    @Test func logLinesAreTaggedWithAppAndFunction() async throws {
        let dir = try PluginDirectory(["m.lua": Self.echo])
        let log = CapturedLog()
        var config = TestServer.withPlugins(dir.path)
        config.logger = log.logger
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            #expect(try await c.function("say", [.double(1.5)], token: token).body == true)
            let line = try #require(log.lines.withLock { $0 }.first { $0.metadata["plugin"] == "say" })
            #expect(line.level == .info && line.message == "hello\t42\t{\"a\":1}\t1.5" && line.metadata["app"] == "local")
            // A failing call logs its traceback, never the arguments.
            _ = try await c.function("fail", ["secret-argument"], token: token)
            let failure = try #require(log.lines.withLock { $0 }.first { $0.metadata["plugin"] == "fail" })
            #expect(failure.message.contains("the answer is not 42") && failure.metadata["traceback"]?.contains("m.lua") == true)
            #expect(!log.lines.withLock { $0 }.contains { "\($0)".contains("secret-argument") })
        }
    }

    /// The confirmation, reset and custom-login functions answer only to their roles.
    @Test func roleFunctionsCannotBeCalledByUsers() async throws {
        let role = "return function() return {status = 'success'} end"
        let dir = try PluginDirectory([
            "m.lua": Self.echo, "reset.lua": role, "confirm.lua": role,
            "login.lua": "return function(payload) return payload.id end",
        ])
        let config = TestServer.withPlugins(dir.path) {
            $0.providers.userpass?.runResetFunction = true
            $0.providers.userpass?.resetFunctionName = "reset"
            $0.providers.userpass?.runConfirmationFunction = true
            $0.providers.userpass?.confirmationFunctionName = "confirm"
        }
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            for name in ["reset", "confirm", "login"] {
                let r = try await c.function(name, token: token)
                #expect(r.status == 404 && r.code == "FunctionNotFound", "\(name)")
            }
            #expect(try await c.function("first", ["x"], token: token).body == "x")
        }
    }

    /// A caller chooses how many values land on a Lua stack: up to the limit they all reach
    /// the function (a new Lua thread has room for 20: the rest were written past its end, and
    /// the server died), past it a 400 names the limit. `reset/call` takes them with no
    /// sign-in at all.
    @Test func manyArgumentsReachTheFunctionUpToALimitThatIsNamed() async throws {
        let count = "return { count = function(...) return select('#', ...) end }"
        let reset = "return function(request, ...) return { status = select('#', ...) == 100 and 'success' or 'fail' } end"
        let dir = try PluginDirectory(["m.lua": count, "reset.lua": reset])
        let config = TestServer.withPlugins(dir.path) {
            $0.providers.userpass?.runResetFunction = true
            $0.providers.userpass?.resetFunctionName = "reset"
        }
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            for n in [19, 20, 21, 64, 100] {
                let r = try await c.function("count", Array(repeating: .int32(1), count: n), token: token)
                #expect(r.status == 200 && r.body == .int32(Int32(n)), "\(n): \(r.body)")
            }
            for n in [101, 1000] {
                let r = try await c.function("count", Array(repeating: .int32(1), count: n), token: token)
                #expect(r.status == 400 && r.code == "InvalidParameter" && r.message?.contains("at most 100") == true, "\(n): \(r.body)")
            }
            try await c.registerConfirmed("many@example.com")
            let hundred = try await c.userpass(
                "reset/call",
                [
                    "email": "many@example.com", "password": "password2",
                    "arguments": .array(Array(repeating: "x", count: 100)),
                ])
            #expect(hundred.status == 200, "\(hundred.body)")
            let thousand = try await c.userpass(
                "reset/call",
                [
                    "email": "many@example.com", "password": "password3",
                    "arguments": .array(Array(repeating: "x", count: 1000)),
                ])
            #expect(thousand.status == 400 && thousand.message?.contains("at most 100") == true, "\(thousand.body)")
            #expect(try await c.function("count", [1], token: token).body == .int32(1))
        }
    }
}
