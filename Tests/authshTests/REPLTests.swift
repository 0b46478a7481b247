import Foundation
import Testing

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct REPLTests {
    @Test func printsExpressionsContinuesChunksAndKeepsTheLastResult() throws {
        let term = try Terminal.started()
        try term.type("1 + 1, 'x', {b = {1, 2}, a = true}")
        try term.waitFor("2       \"x\"     { a = true, b = { 1, 2 } }")
        try term.type("for i = 1, 2 do")
        try term.waitFor(">>")
        try term.type("print('line', i) end")
        try term.waitFor("line    2")
        try term.type("_ + 40")
        try term.waitFor("\n42\n")
        try term.type("error('oops')")
        try term.waitFor("authsh: stdin:1: oops")
    }

    @Test func tabCompletesNestedFieldsAndMethods() throws {
        let term = try Terminal.started()
        try term.type("config = {server = {timeoutSeconds = 30}}")
        try term.type("obj = setmetatable({}, {__index = {greet = function(self, n) return 'hi ' .. n end}})")
        // Typed, Tab, the completed word on screen, then the rest of the line and its answer.
        for (typed, completed, rest, answer) in [
            ("config.server.time", "config.server.timeoutSeconds", "", "\n30\n"),
            ("obj:gr", "obj:greet", "('bob')", "\"hi bob\""),
            // Through a file handle's metatable, and a string literal's.
            ("io.stdout:wri", "io.stdout:write", "('ok\\n')", "\nok\n"),
            ("('abc'):up", "('abc'):upper", "()", "\"ABC\""),
        ] {
            try term.type(typed, enter: false)
            try term.press("Tab")
            try term.waitFor(completed)
            try term.type(rest)
            try term.waitFor(answer)
        }
    }

    @Test func ctrlCStopsAnEndlessLoopAndTheREPLGoesOn() throws {
        let term = try Terminal.started()
        try term.type("print('spinning'); while true do pcall(function() while true do end end) end")
        // The output line, not the echo of the typed one (which holds the word too): Ctrl-C
        // before the line is read would only clear it.
        try term.waitFor("\nspinning")
        try term.press("C-c")
        try term.waitFor("interrupted!")
        try term.type("6 * 7")
        try term.waitFor("\n42\n")
        #expect(try term.quit())
    }

    @Test func historySurvivesRestartsWithoutSecrets() throws {
        let data = try Binary.temporaryDirectory()
        do {
            let term = try Terminal(dataDirectory: data)
            try term.waitFor("authsh local>")
            try term.type("answer = 41")
            try term.type("login_password = 'hunter2hunter2'")
            #expect(try term.quit())
        }
        let history = try String(contentsOfFile: data + "/history", encoding: .utf8)
        #expect(history.contains("answer = 41"))
        #expect(!history.contains("hunter2"))
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/history")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let again = try Terminal(dataDirectory: data)
        try again.waitFor("authsh local>")
        try again.press("Up")
        try again.waitFor("authsh local> answer = 41")
    }
}
