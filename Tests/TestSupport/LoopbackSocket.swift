// SPDX-License-Identifier: Apache-2.0
import Glibc
import Synchronization

/// A close-on-exec TCP socket bound to a free port on 127.0.0.1, listening or not, for tests
/// that need a port of their own: one nothing answers on (a connection is refused while it is
/// bound and not listening), one that accepts and never answers, or a port held for a child
/// process to take. Closed by ``close()`` or when released.
public final class LoopbackSocket: Sendable {
    private let descriptor: Atomic<Int32>
    public let port: Int

    /// The socket's descriptor, or -1 once closed.
    public var fd: Int32 { descriptor.load(ordering: .acquiring) }

    /// - Parameters:
    ///   - listening: accept connections (the kernel completes them; nothing answers).
    ///   - shared: `SO_REUSEADDR`, so that a child process that sets it too may bind the port
    ///     while this socket still holds it (then close this one).
    public init(listening: Bool = false, shared: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if shared {
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || Glibc.listen(fd, 16) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let error = errno
            Glibc.close(fd)
            throw Failure(description: "bind or listen on 127.0.0.1: errno \(error)")
        }
        descriptor = Atomic(fd)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// A port free now (bound, then let go), for a server a test names by a fixed port.
    public static func freePort() throws -> Int { try LoopbackSocket().port }

    /// Closes the socket; idempotent.
    public func close() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    deinit { close() }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}
