// SPDX-License-Identifier: Apache-2.0
import Glibc

/// One line from a descriptor, read a byte at a time so that nothing after it is taken (the
/// two sides of the embedded server's pipes).
public enum LineReader {
    /// What came first.
    public enum Outcome: Equatable, Sendable {
        /// A line, without its newline.
        case line(String)
        /// The end of the file, or `limit` bytes without a newline.
        case ended
        /// `timeout` passed first.
        case timedOut
    }

    /// The first line `fd` gives (at most `limit` bytes), waiting at most `timeout` (nil: as
    /// long as it takes).
    public static func readLine(_ fd: Int32, limit: Int = 4096, timeout: Duration? = nil) -> Outcome {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < limit {
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return .timedOut }
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, Int32(clamping: milliseconds))
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0 else { return .timedOut }
            }
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return .ended }
            if byte == UInt8(ascii: "\n") { return .line(String(decoding: line, as: UTF8.self)) }
            line.append(byte)
        }
        return .ended
    }
}
