// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")), .binary, .timeLimit(.minutes(5)))
struct REPLTests {
    @Test func printsExpressionsContinuesChunksAndKeepsTheLastResult() async throws {
        let term = try await Terminal.started()
        try await term.type("1 + 1, 'x', {b = {1, 2}, a = true}")
        try await term.waitFor("2       \"x\"     { a = true, b = { 1, 2 } }")
        try await term.type("for i = 1, 2 do")
        try await term.waitFor(">>")
        try await term.type("print('line', i) end")
        try await term.waitFor("line    2")
        try await term.type("_ + 40")
        try await term.waitFor("\n42\n")
        try await term.type("error('oops')")
        try await term.waitFor("authsh: stdin:1: oops")
    }

    @Test func tabCompletesNestedFieldsAndMethods() async throws {
        let term = try await Terminal.started()
        try await term.type("config = {server = {timeoutSeconds = 30}}")
        try await term.type("obj = setmetatable({}, {__index = {greet = function(self, n) return 'hi ' .. n end}})")
        // Typed, Tab, the completed word on screen, then the rest of the line and its answer.
        for (typed, completed, rest, answer) in [
            ("config.server.time", "config.server.timeoutSeconds", "", "\n30\n"),
            ("obj:gr", "obj:greet", "('bob')", "\"hi bob\""),
            // Through a file handle's metatable, and a string literal's.
            ("io.stdout:wri", "io.stdout:write", "('ok\\n')", "\nok\n"),
            ("('abc'):up", "('abc'):upper", "()", "\"ABC\""),
        ] {
            try await term.type(typed, enter: false)
            try await term.press("Tab")
            try await term.waitFor(completed)
            try await term.type(rest)
            try await term.waitFor(answer)
        }
    }

    /// `.help NAME` prints the description the bindings carry (the reference's).
    @Test func helpDescribesABinding() async throws {
        let term = try await Terminal.started()
        try await term.type(".help User:unlink")
        try await term.waitFor("User:unlink(identity: Identity): User")
        try await term.waitFor("the last one stays")
        try await term.type(".help auth.dev")
        try await term.waitFor("auth.dev.wipeUsers()")
        try await term.type(".help nothing.here")
        try await term.waitFor("no binding is named nothing.here")
        // Tab completes the names .help knows.
        try await term.type(".help User:revokeO", enter: false)
        try await term.press("Tab")
        try await term.waitFor(".help User:revokeOtherSessions")
        try await term.press("Enter")
        try await term.waitFor("ends every session but this one")
        #expect(try await term.quit())
    }

    @Test func ctrlCStopsAnEndlessLoopAndTheREPLGoesOn() async throws {
        let term = try await Terminal.started()
        try await term.type("print('spinning'); while true do pcall(function() while true do end end) end")
        // The output line, not the echo of the typed one (which holds the word too): Ctrl-C
        // before the line is read would only clear it.
        try await term.waitFor("\nspinning")
        try await term.press("C-c")
        try await term.waitFor("interrupted!")
        try await term.type("6 * 7")
        try await term.waitFor("\n42\n")
        #expect(try await term.quit())
    }

    @Test func historySurvivesRestartsWithoutSecrets() async throws {
        let data = try Binary.temporaryDirectory()
        do {
            let term = try await Terminal(dataDirectory: data)
            try await term.waitFor("authsh local>")
            try await term.type("answer = 41")
            try await term.type("login_password = 'hunter2hunter2'")
            #expect(try await term.quit())
        }
        let history = try String(contentsOfFile: data + "/history", encoding: .utf8)
        #expect(history.contains("answer = 41"))
        #expect(!history.contains("hunter2"))
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/history")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let again = try await Terminal(dataDirectory: data)
        try await again.waitFor("authsh local>")
        try await again.press("Up")
        try await again.waitFor("authsh local> answer = 41")
    }
}
