// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import Testing

/// Loading plugins: start-up errors name the file or the config key; dev mode reloads changed
/// files for the next call; a file that breaks keeps its last good version.
@Suite(.timeLimit(.minutes(5))) struct PluginLoadingTests {
    static func startupError(_ files: [String: String], _ configure: (inout AppConfiguration) -> Void = { _ in }) async throws -> String {
        let dir = try PluginDirectory(files)
        do {
            _ = try await buildApplication(TestServer.withPlugins(dir.path, configure))
            Issue.record("the server started")
            return ""
        } catch let error as ConfigError {
            return error.description
        }
    }

    @Test func aConfiguredNameThatResolvesToNothingStopsStartUp() async throws {
        let message = try await Self.startupError(["greet.lua": "return function() end"]) {
            $0.providers.userpass?.runResetFunction = true
            $0.providers.userpass?.resetFunctionName = "reset"
        }
        #expect(message == "config: apps[0].providers.local-userpass.resetFunctionName: no plugin function 'reset' (plugins export greet)")
        let missing = try await Self.startupError([:]) { $0.providers.customFunction = .init() }
        #expect(missing.contains("authFunctionName: no plugin function 'login' (no plugin exports a function)"))
    }

    @Test(arguments: [
        ("bad.lua", "return function( end", "bad.lua:1:"),
        ("number.lua", "return 42", "number.lua must return a function or a table of functions, not number"),
        ("empty.lua", "return {}", "empty.lua returns a table with no functions in it"),
        ("loop.lua", "while true do end", "execution time limit exceeded"),
        ("raise.lua", "error('not today')", "not today"),
    ])
    func aFileThatDoesNotLoadStopsStartUp(file: String, source: String, expected: String) async throws {
        let message = try await Self.startupError([file: source])
        #expect(message.contains("/\(file): "), "\(message)")
        #expect(message.contains(expected), "\(message)")
    }

    @Test func twoFilesExportingOneNameStopStartUp() async throws {
        let message = try await Self.startupError(["a.lua": "return {x = function() end}", "b.lua": "return {x = function() end}"])
        #expect(message.hasSuffix("b.lua: exports 'x', which a.lua exports too"), "\(message)")
    }

    @Test func aMissingDirectoryIsAnErrorOnlyWhenNamed() async throws {
        var config = TestServer.configuration(plugins: "/nonexistent/authsh-plugins")
        _ = try await buildApplication(config)
        config.pluginsDirectoryRequired = true
        await #expect(throws: ConfigError.self) { _ = try await buildApplication(config) }
    }

    @Test func aServerWithNoAppIsAConfigError() async throws {
        let config = TestServer.configuration(apps: [])
        await #expect(throws: ConfigError.self) { _ = try await buildApplication(config) }
    }

    @Test func devConfigPatchChecksFunctionNames() async throws {
        let dir = try PluginDirectory(["reset.lua": "return function() return {status = 'pending'} end"])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let path = "\(Routes.dev)/apps/local/config"
            let bad = try await c.call(
                .patch, path, json: ["providers": ["local-userpass": ["runResetFunction": true, "resetFunctionName": "nope"]]])
            #expect(bad.status == 400 && bad.code == "InvalidParameter")
            #expect(bad.message?.contains("resetFunctionName: no plugin function 'nope'") == true)
            let good = try await c.call(
                .patch, path, json: ["providers": ["local-userpass": ["runResetFunction": true, "resetFunctionName": "reset"]]])
            #expect(good.status == 200)
        }
    }

    @Test func devModeReloadsAChangedFileForTheNextCall() async throws {
        let dir = try PluginDirectory(["v.lua": "return function() return 1 end"])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            #expect(try await c.function("v", token: token).body == .int32(1))
            try dir.write("v.lua", "return function() return 2 end")
            #expect(try await c.function("v", token: token).body == .int32(2))
            // A file that no longer compiles keeps its last good version.
            try dir.write("v.lua", "return function() return end end")
            #expect(try await c.function("v", token: token).body == .int32(2))
            // New files are picked up, removed ones disappear.
            try dir.write("w.lua", "return function() return 'w' end")
            #expect(try await c.function("w", token: token).body == "w")
            try FileManager.default.removeItem(atPath: dir.path + "/w.lua")
            #expect(try await c.function("w", token: token).code == "FunctionNotFound")
        }
    }

    @Test func aReloadThatLosesAConfiguredFunctionIsNotApplied() async throws {
        let dir = try PluginDirectory([
            "reset.lua": "return function() return {status = 'pending'} end",
            "v.lua": "return function() return 1 end",
        ])
        let config = TestServer.withPlugins(dir.path) {
            $0.providers.userpass?.runResetFunction = true
            $0.providers.userpass?.resetFunctionName = "reset"
        }
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            try FileManager.default.removeItem(atPath: dir.path + "/reset.lua")
            try dir.write("v.lua", "return function() return 2 end")
            #expect(try await c.function("v", token: token).body == .int32(1))
            // With the configured function back, the same reload is applied.
            try dir.write("reset.lua", "return function() return {status = 'pending'} end")
            #expect(try await c.function("v", token: token).body == .int32(2))
        }
    }

    @Test func productionReloadsOnSIGHUP() async throws {
        let dir = try PluginDirectory(["h.lua": "return function() return 1 end"])
        var config = TestServer.withPlugins(dir.path)
        config.dev = false
        config.reloadPluginsOnHangup = true
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            try dir.write("h.lua", "return function() return 2 end")
            #expect(try await c.function("h", token: token).body == .int32(1))
            kill(getpid(), SIGHUP)
            var value = EJSON.int32(1)
            for _ in 0..<100 where value == .int32(1) {
                try await Task.sleep(for: .milliseconds(20))
                value = try await c.function("h", token: token).body
            }
            #expect(value == .int32(2))
        }
    }
}

/// A `login` plugin turns custom-function login on by itself only in dev mode: the example
/// accepts any username, so a production server needs the app's config to say so.
@Suite(.timeLimit(.minutes(5))) struct CustomFunctionZeroConfigTests {
    @Test(arguments: [true, false])
    func aLoginPluginAloneEnablesLoginOnlyInDevMode(dev: Bool) async throws {
        let dir = try PluginDirectory(["login.lua": #"return function(p) return p.username end"#])
        var config = TestServer.configuration(dev: dev, plugins: dir.path)
        config.configFile = nil
        try await TestServer.run(config) { c in
            let r = try await c.login("custom-function", ["provider": "custom-function", "username": "anyone"])
            if dev {
                #expect(r.status == 200, "\(r.body)")
            } else {
                #expect(r.status == 404 && r.code == "AuthProviderNotFound", "\(r.body)")
            }
        }
    }
}
