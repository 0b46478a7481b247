// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

/// How the REPL shows a string: as Lua would read it back, and never as something that acts on
/// the terminal (a string can hold what a server sent: an email, an id).
@Suite(.timeLimit(.minutes(5))) struct FormatterTests {
    @Test func unprintableCharactersAreLuaEscapes() throws {
        #expect(LuaFormatter.quote(Array("a\u{1B}[2Jb\u{07}".utf8)) == #""a\27[2Jb\7""#)
        #expect(LuaFormatter.quote(Array("x\u{9B}31m\u{202E}gnp.exe\u{200B}".utf8)) == #""x\u{9B}31m\u{202E}gnp.exe\u{200B}""#)
        #expect(LuaFormatter.quote(Array("Grüße, 東京 🙂".utf8)) == #""Grüße, 東京 🙂""#)
        // What the formatter writes, Lua reads back as the same bytes.
        let lua = try LuaState()
        let text = "x\u{9B}\u{202E}\u{1B}y"
        #expect(try lua.evaluate("return " + LuaFormatter.quote(Array(text.utf8))) == [.string(LuaString(text))])
    }
}
