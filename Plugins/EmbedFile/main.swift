// SPDX-License-Identifier: Apache-2.0
import Foundation

// embed-file INPUT OUTPUT NAME DOC: writes OUTPUT, a Swift file declaring `enum NAME` whose
// `json` is INPUT's text (a raw string literal with enough `#` that no text can end it).
let arguments = CommandLine.arguments
guard arguments.count == 5, let text = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: embed-file INPUT OUTPUT NAME DOC (INPUT readable as UTF-8)\n".utf8))
    exit(64)
}
var hashes = "#"
while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
let swift = """
    // Generated at build time from \((arguments[1] as NSString).lastPathComponent): do not edit.

    /// \(arguments[4])
    enum \(arguments[3]) {
        static let json = \(hashes)\"\"\"
    \(text.trimmingCharacters(in: .newlines))
    \"\"\"\(hashes)
    }

    """
do {
    try swift.write(toFile: arguments[2], atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("embed-file: cannot write \(arguments[2]): \(error)\n".utf8))
    exit(1)
}
