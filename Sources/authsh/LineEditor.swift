// SPDX-License-Identifier: Apache-2.0
@preconcurrency import CReadline
import CommandSupport
import Glibc
import Lua

/// What reading a line gave.
enum LineInput: Equatable {
    case line(String)
    case endOfFile
    case interrupted
}

/// Line input for the REPL: GNU readline (GPL) kept behind this one small type.
///
/// Uses readline's callback interface so that the loop can also watch the SIGINT pipe: Ctrl-C
/// while typing clears the line instead of killing the process.
final class LineEditor {
    /// - Parameter completer: the candidates for the word under the cursor, given the word and
    ///   the line before it.
    init(completer: @escaping (_ word: String, _ before: String) -> [String]) {
        LineEditorState.completer = completer
        rl_readline_name = UnsafePointer(LineEditorState.readlineName)
        rl_catch_signals = 0
        rl_completer_word_break_characters = UnsafePointer(LineEditorState.wordBreaks)
        rl_attempted_completion_function = { text, start, _ in
            rl_attempted_completion_over = 1
            rl_completion_append_character = 0
            // No closing quote after a completion that follows a string literal (`('x'):upper`).
            rl_completion_suppress_quote = 1
            let word = text.map { String(cString: $0) } ?? ""
            let line = rl_line_buffer.map { Array(String(cString: $0).utf8) } ?? []
            let before = String(decoding: line.prefix(max(0, Int(start))), as: UTF8.self)
            LineEditorState.matches = LineEditorState.completer?(word, before) ?? []
            guard !LineEditorState.matches.isEmpty else { return nil }
            return rl_completion_matches(
                text,
                { _, state in
                    if state == 0 { LineEditorState.next = 0 }
                    guard LineEditorState.next < LineEditorState.matches.count else { return nil }
                    defer { LineEditorState.next += 1 }
                    return strdup(LineEditorState.matches[LineEditorState.next])
                })
        }
    }

    /// Reads one line with `prompt`.
    func read(prompt: String) -> LineInput {
        LineEditorState.done = false
        LineEditorState.line = nil
        rl_callback_handler_install(prompt) { line in
            LineEditorState.line = line
            LineEditorState.done = true
            rl_callback_handler_remove()
        }
        let interruptFD = LuaState.interruptFD
        LuaState.drainInterrupts()
        while !LineEditorState.done {
            var fds = [
                pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interruptFD, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return .endOfFile
            }
            if fds[1].revents != 0 {
                LuaState.drainInterrupts()
                rl_free_line_state()
                rl_callback_sigcleanup()
                rl_callback_handler_remove()
                fflush(nil)
                Output.write(1, "^C\n")
                fflush(nil)
                return .interrupted
            }
            if fds[0].revents != 0 { rl_callback_read_char() }
        }
        guard let pointer = LineEditorState.line else { return .endOfFile }
        defer { free(pointer) }
        return .line(String(cString: pointer))
    }

    /// Adds an entry to this session's history (Up arrow).
    func remember(_ entry: String) { add_history(entry) }
}

/// Readline calls C callbacks without a context pointer, so their state lives here.
/// Safety: the REPL runs on the main thread only and nothing else touches readline or these
/// values, so there is never concurrent access.
enum LineEditorState {
    nonisolated(unsafe) static var line: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var done = false
    nonisolated(unsafe) static var completer: ((String, String) -> [String])?
    nonisolated(unsafe) static var matches: [String] = []
    nonisolated(unsafe) static var next = 0
    /// Allocated once and never freed: readline keeps pointers to them.
    nonisolated(unsafe) static let readlineName = strdup("authsh")!
    /// Not the quotes: `("x"):up` is then one word after `(`, which completion reads as a string.
    nonisolated(unsafe) static let wordBreaks = strdup(" \t\n`@$><=;|&{(,+-*/%^~#[]")!
}
