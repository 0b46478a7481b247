// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc
import Lua

/// The spec files `authsh test` runs, found as busted finds them: `.lua` files whose name
/// matches one of the patterns (Lua patterns, busted's default `_spec`), under the directories
/// named (recursively) or named themselves. With no path: the `spec` directory, and the
/// current directory's own files (not its subdirectories).
struct SpecFiles {
    /// The patterns (`--pattern`); busted's default when none is given.
    var patterns = ["_spec"]

    /// The files, sorted within each path (so a run's order and report do not depend on the
    /// file system's), each once.
    /// - Throws: ``TestUsageError`` for a path that does not exist or a pattern Lua refuses.
    func find(_ paths: [String]) throws(TestUsageError) -> [String] {
        let matcher: Matcher
        do { matcher = try Matcher(patterns) } catch { throw TestUsageError("--pattern: \(error)") }
        var found: [String] = []
        func add(_ files: [String]) {
            for file in files.sorted() where !found.contains(file) { found.append(file) }
        }
        if paths.isEmpty {
            if Files.isDirectory("spec") { add(Self.files(under: "spec", recursive: true).filter(matcher.matches)) }
            add(Self.files(under: ".", recursive: false).map { String($0.dropFirst(2)) }.filter(matcher.matches))
            return found
        }
        for path in paths {
            if Files.isDirectory(path) {
                add(Self.files(under: path, recursive: true).filter(matcher.matches))
            } else if access(path, R_OK) == 0 {
                add([path])
            } else {
                throw TestUsageError("cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }
        return found
    }

    /// The regular `.lua` files under `directory` (hidden ones left out, as busted does).
    private static func files(under directory: String, recursive: Bool) -> [String] {
        var files: [String] = []
        for name in Files.names(in: directory) where !name.hasPrefix(".") {
            let path = directory + "/" + name
            if Files.isDirectory(path) {
                if recursive { files += self.files(under: path, recursive: true) }
            } else if name.hasSuffix(".lua") {
                files.append(path)
            }
        }
        return files
    }

    /// Lua's own `string.find`, so that a pattern means what it means to busted.
    private struct Matcher {
        let lua: LuaState
        let patterns: [String]

        init(_ patterns: [String]) throws {
            lua = try LuaState(profile: .sandboxed(.init()))
            self.patterns = patterns
            for pattern in patterns { _ = try matches("x", pattern) }
        }

        func matches(_ path: String) -> Bool {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return patterns.contains { (try? matches(name, $0)) == true }
        }

        private func matches(_ name: String, _ pattern: String) throws -> Bool {
            try lua.setGlobal("name", .string(LuaString(name)))
            try lua.setGlobal("pattern", .string(LuaString(pattern)))
            return try lua.evaluate("return string.find(name, pattern) ~= nil") == [.boolean(true)]
        }
    }
}

/// Bad usage of `authsh test`: exit 64 with the message.
struct TestUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
