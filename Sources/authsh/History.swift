// SPDX-License-Identifier: Apache-2.0
@preconcurrency import CReadline
import CommandSupport
import Glibc

/// The REPL's history file: read at start, appended after each entry, capped. Entries that
/// carry secrets stay in this session's memory and never reach the file.
struct History {
    let path: String
    let limit: Int32

    init(directory: String, limit: Int32 = 1000) {
        path = directory + "/history"
        self.limit = limit
        if Files.makeDirectory(directory) {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
            _ = read_history(path)
        }
        stifle_history(limit)
    }

    /// Words that mark a line as carrying a secret (case-insensitive).
    static let secretMarkers = ["password", "passwd", "token", "secret", "apikey", "api_key", "credential"]

    static func carriesSecret(_ entry: String) -> Bool {
        let lower = entry.lowercased()
        return secretMarkers.contains { lower.contains($0) }
    }

    /// Records an entry: in memory always, in the file unless it carries a secret.
    func record(_ entry: String, editor: LineEditor) {
        guard !entry.allSatisfy({ $0 == " " || $0 == "\t" }) else { return }
        editor.remember(entry)
        guard !History.carriesSecret(entry) else { return }
        if append_history(1, path) == 0 { _ = history_truncate_file(path, limit) }
    }
}
