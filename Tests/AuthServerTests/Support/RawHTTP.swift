// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc
import TestSupport

/// Bytes sent to a loopback port as they are, for requests no HTTP client would write
/// (malformed chunking, slow or partial headers). The socket calls block: run them through
/// `offPool`, never on a cooperative thread (the server under test needs those).
enum RawHTTP {
    /// Runs blocking `body` on a thread of its own (``BlockingThread``) and awaits its result.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingThread.run { Result { try body() } }.get()
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A connected TCP socket to 127.0.0.1:`port`, with a receive timeout.
    static func connect(port: Int, timeoutSeconds: Int = 10, from source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        if let source {
            // Another loopback address (127.0.0.2, ...): another client, as the server counts them.
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw Failure(description: "bind \(source): \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect: \(errno)")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ fd: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            sent += n
        }
    }

    /// Reads until the peer closes, the timeout passes, or `limit` bytes came.
    static func receive(_ fd: Int32, limit: Int = 1 << 16) -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while out.count < limit {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when the peer closes the connection before `timeoutSeconds` (set at connect) pass.
    static func closedByPeer(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    /// Whether the server closes a connection on `port` after `sent` (nothing when empty) and no
    /// more, within 60 s (a bound for a failing test: the servers under test close in about 1 s):
    /// how a test sees a timeout on a silent or half-sent client.
    static func closesAfter(sending sent: String, port: Int) async throws -> Bool {
        try await offPool {
            let fd = try connect(port: port, timeoutSeconds: 60)
            defer { close(fd) }
            if !sent.isEmpty { try send(fd, sent) }
            return closedByPeer(fd)
        }
    }

    /// Sends `request` and returns what came back before the connection closed.
    static func exchange(port: Int, _ request: String, from source: String? = nil) async throws -> String {
        try await offPool {
            let fd = try connect(port: port, from: source)
            defer { close(fd) }
            try send(fd, request)
            return receive(fd)
        }
    }
}

extension RawHTTP {
    /// A loopback port: listening, it accepts connections (the kernel completes them) and never
    /// answers, an identity provider that hangs; not listening, connections to it are refused,
    /// and no other socket can take it until ``LoopbackSocket/close()``.
    typealias Listener = LoopbackSocket

    static func reserve() throws -> Listener { try LoopbackSocket() }

    static func listen() throws -> Listener { try LoopbackSocket(listening: true) }
}
