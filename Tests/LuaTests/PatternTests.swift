// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

/// The sandbox's own pattern matcher (find, match, gmatch, gsub) against Lua's: the same
/// results and errors for the same calls, and a deadline that stops it mid-match.
@Suite(.timeLimit(.minutes(5))) struct PatternTests {
    /// Runs every case and serialises results and errors into one string per case.
    static let script = #"""
        local cases = {
          {"hello world", "o w"}, {"hello world", "l+"}, {"hello", "^h(.-)o$"}, {"  trim  ", "^%s*(.-)%s*$"},
          {"key = value", "(%w+)%s*=%s*(%w+)"}, {"THE (quick) fox", "%((%a+)%)"}, {"f(a(b)c)d", "%b()"},
          {"THE (quick) fox", "%f[%a]%a+"}, {"hello", "()ll()"}, {"abcabc", "(abc)%1"}, {"a.b", "%."},
          {"a+b", "a+b", 1, true}, {"a+b", "a+b"}, {"[x]]", "[%]x]+"}, {"abc", "[^a]+"}, {"abc", "[a-b]*"},
          {"", ".*"}, {"abc", ""}, {"abc", "x*", 2}, {"abc", "b", -2}, {"abc", "b", 10}, {"abc", "b", -10},
          {"a\0b", "\0b"}, {"a\0b", "%z"}, {"aaa", "a-", 1}, {"aaab", "a-b"}, {"x=1, y=2", "(%w+)=(%w+)"},
          {"hello", "l?l"}, {"12ab", "%d+%a"}, {"caps LOCK", "%u+"}, {"é and a", "[\128-\255]+"}, {"a$b", "a$b"},
          {"ab", "b$"}, {"ab$", "b$"}, {"one two  three", "%S+"}, {"a-b-c", "[%-]"}, {"x^y", "^x^"}, {"-1.5e3", "^[+-]?%d+%.?%d*[eE]?%d*$"},
          {"aXb", "%f[%u]"}, {"THE END", "%f[%z]"}, {"[[nested]]", "%[(%b[])%]"}, {"aaa", "()a*()"}, {"abc", "((a)(b))c"},
          {"a", "%"}, {"a", "[a"}, {"a", "(a"}, {"a", "a)"}, {"a", "%1"}, {"a", "%b"}, {"a", "%fa"}, {"a", "(()"},
        }
        local function ser(ok, ...)
          local out = { ok and "ok" or "err" }
          for i = 1, select("#", ...) do
            local v = select(i, ...)
            out[#out + 1] = math.type(v) or type(v) .. ":" .. tostring(v)
            if math.type(v) then out[#out] = out[#out] .. ":" .. tostring(v) end
          end
          return table.concat(out, "|")
        end
        local function gm(s, p, init)
          local all = {}
          local n = 0
          for a, b, c in string.gmatch(s, p, init) do
            n = n + 1
            if n > 50 then break end
            all[#all + 1] = tostring(a) .. "," .. tostring(b) .. "," .. tostring(c)
          end
          return table.concat(all, ";")
        end
        local results = {}
        for i, c in ipairs(cases) do
          local s, p, init, plain = c[1], c[2], c[3], c[4]
          local line = {
            ser(pcall(string.find, s, p, init, plain)),
            ser(pcall(string.match, s, p, init)),
            ser(pcall(gm, s, p, init)),
            ser(pcall(string.gsub, s, p, "<%0>")),
            ser(pcall(string.gsub, s, p, "%1-%%")),
            ser(pcall(string.gsub, s, p, "%2")),
            ser(pcall(string.gsub, s, p, "%x")),
            ser(pcall(string.gsub, s, p, string.upper)),
            ser(pcall(string.gsub, s, p, function() return false end)),
            ser(pcall(string.gsub, s, p, function() return {} end)),
            ser(pcall(string.gsub, s, p, { hello = "HI", a = 1, b = true }, 2)),
            ser(pcall(string.gsub, s, p, "!", 1)),
            ser(pcall(function() return (s):find(p, init, plain) end)),
          }
          results[i] = table.concat(line, "  ")
        end
        return results
        """#

    @Test func theSandboxMatcherAgreesWithLua() throws {
        let trusted = try LuaState(profile: .trusted)
        let sandboxed = try sandbox(deadline: .seconds(5))
        let expected = try trusted.evaluate(Self.script)
        let actual = try sandboxed.evaluate(Self.script)
        guard case .table(let e)? = expected.first, case .table(let a)? = actual.first else {
            Issue.record("no results")
            return
        }
        #expect(e.array.count > 50 && a.array.count == e.array.count)
        for (i, (x, y)) in zip(e.array, a.array).enumerated() {
            #expect(x == y, "case \(i + 1):\nlua:     \(x)\nsandbox: \(y)")
        }
    }

    @Test(arguments: [
        "string.find(s, '.-.-.-.-b')",
        "string.match(s, '(.-)(.-)(.-)(.-)b')",
        "string.gsub(s, '.-.-.-.-b', 'x')",
        "for m in string.gmatch(s, '.-.-.-.-b') do end",
        "s:find('a*a*a*a*a*b')",
    ])
    func aDeadlineStopsAPathologicalPattern(code: String) throws {
        let lua = try sandbox(deadline: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: LuaError.self) {
            try lua.evaluate("local s = string.rep('a', 3000) \(code)")
        }
        #expect(error.code == .timeout, "\(error)")
        #expect(clock.now - start < .seconds(3))
        // The state serves the next run.
        #expect(try lua.evaluate("return ('abc'):match('b(.)')") == ["c"])
    }
}
