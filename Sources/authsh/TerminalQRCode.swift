// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import CLinux
import Glibc
import Spawn

/// A QR code for the terminal, drawn by `qrencode` (libqrencode's command, Debian package
/// `qrencode`) in Unicode half blocks: what the REPL shows for a TOTP enrolment's `otpauth://`
/// URI, so that a phone's authenticator app can scan it off the screen.
///
/// The text goes to `qrencode` on its standard input, never in its arguments: an `otpauth://`
/// URI holds a secret, and a process's arguments are readable by every user of the machine.
enum TerminalQRCode {
    /// The code of `text`, or nil when `qrencode` is not installed or fails.
    static func render(_ text: String) -> String? {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&input) == 0 else { return nil }
        guard clinux_pipe_cloexec(&output) == 0 else {
            close(input[0]); close(input[1])
            return nil
        }
        let spawned = ProgramSpawn.spawn(
            "qrencode", arguments: ["qrencode", "-t", "UTF8", "-m", "2", "-o", "-"], searchPath: true,
            standardInput: input[0], standardOutput: output[1])
        close(input[0])
        close(output[1])
        guard case .success(let pid) = spawned else {
            close(input[1]); close(output[0])
            return nil
        }
        // A URI is far smaller than a pipe's buffer: the write does not wait for the reader.
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        close(input[1])
        var drawn: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(output[0], &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            drawn += buffer[0..<n]
        }
        close(output[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard written == bytes.count, status == 0, !drawn.isEmpty else { return nil }
        return String(decoding: drawn, as: UTF8.self)
    }
}
