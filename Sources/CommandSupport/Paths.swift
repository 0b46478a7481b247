// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Where authsh keeps its data, and the environment it reads.
public enum Paths {
    /// The variable's value; nil when it is unset or empty.
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// `$AUTHSH_DATA`, else `$XDG_DATA_HOME/authsh`, else `~/.local/share/authsh`.
    public static func defaultDataDirectory() -> String {
        if let data = environment("AUTHSH_DATA") { return data }
        if let xdg = environment("XDG_DATA_HOME") { return xdg + "/authsh" }
        let home = environment("HOME") ?? "."
        return home + "/.local/share/authsh"
    }
}
