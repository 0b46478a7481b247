// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc
import Lua

/// What `.save FILE` writes: the REPL's statements that ran without an error, in order, as a
/// script `authsh FILE` replays. A line the REPL evaluated as an expression (`u.id`) is saved
/// as `print(u.id)`, since a script cannot hold a bare expression; a password typed at an
/// `auth.password()` prompt is never part of a statement, so the script prompts again.
struct SavedSession {
    private(set) var statements: [String] = []

    /// Records `entry`, which ran without an error.
    mutating func ran(_ entry: String, in lua: LuaState) {
        if (try? lua.load(entry, name: "=save")) != nil {
            statements.append(entry)
        } else {
            statements.append("print(\(entry))")
        }
    }

    /// Writes the statements to `path` (readable by its owner only: a statement may hold a
    /// password typed in it) and says how many.
    func write(to path: String) {
        guard Files.writePrivate(path, statements.map { $0 + "\n" }.joined(), replacing: true) else {
            Output.error("authsh: cannot write \(path): \(String(cString: strerror(errno)))")
            return
        }
        print("saved \(statements.count) statement\(statements.count == 1 ? "" : "s") to \(path)")
    }
}
