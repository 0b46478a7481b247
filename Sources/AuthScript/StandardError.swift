// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Unbuffered writes to fd 2 (progress bars and prompts must appear at once).
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
