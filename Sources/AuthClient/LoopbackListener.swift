// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc
import Synchronization

/// The native client's end of the loopback flow (RFC 8252): a listener on 127.0.0.1 and an
/// ephemeral port that waits for the browser's one request to `/callback`, answers it with a
/// short page, and hands over its query. Other paths (a browser's `/favicon.ico`) get 404.
///
/// Sockets are blocking and served on a thread of their own (``BlockingThread``).
final class LoopbackListener: Sendable {
    let port: Int
    private let fd: Int32
    private let closed = Atomic<Bool>(false)
    /// The `state` the callback must carry; a request with another one is refused on its page.
    private let expectedState: Mutex<String>

    /// Binds 127.0.0.1 on a port the kernel picks.
    init(expectedState: String) throws(AuthClientError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            Glibc.close(fd)
            throw Self.failure("bind")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.expectedState = Mutex(expectedState)
    }

    /// Names the `state` the callback must carry, once it is known (a Firebase redirect's
    /// comes from the server's answer, after the listener's address went into it).
    func expect(state: String) { expectedState.withLock { $0 = state } }

    deinit { close() }

    /// Where the browser is sent back: `http://127.0.0.1:PORT/callback`.
    var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    /// Stops listening; a pending ``callback()`` ends with a cancellation.
    func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { Glibc.close(fd) }
    }

    /// The query of the browser's request to `/callback`. Returns when it comes, or throws
    /// when the listener is closed (the caller's timeout or cancellation closes it).
    func callback() async throws(AuthClientError) -> [(String, String)] {
        try await BlockingThread.run { self.serve() }.get()
    }

    private func serve() -> Result<[(String, String)], AuthClientError> {
        while !closed.load(ordering: .acquiring) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready <= 0 { continue }
            let client = accept(fd, nil, nil)
            if client < 0 { continue }
            defer { Glibc.close(client) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let target = Self.requestTarget(client) else { continue }
            let (path, query) = target.split(separator: "?", maxSplits: 1).map(String.init).splitPair
            guard path == "/callback", let fields = FormEncoding.decode(query) else {
                Self.answer(client, status: "404 Not Found", page: Self.page("Not found", "This address only takes the sign-in callback."))
                continue
            }
            guard FormEncoding.value("state", in: fields) == expectedState.withLock({ $0 }) else {
                Self.answer(
                    client, status: "400 Bad Request",
                    page: Self.page("Sign-in failed", "The answer does not belong to this sign-in (state differs). Start again."))
                continue
            }
            if let error = FormEncoding.value("error", in: fields) {
                Self.answer(client, status: "200 OK", page: Self.page("Sign-in failed", error))
            } else {
                Self.answer(client, status: "200 OK", page: Self.page("Signed in", "You are signed in to authsh. You can close this tab."))
            }
            return .success(fields)
        }
        return .failure(AuthClientError(code: AuthClientError.cancelled, message: "the sign-in was cancelled"))
    }

    /// The request target of a GET (at most 16 KiB of head read).
    private static func requestTarget(_ fd: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16_384 {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            let searchFrom = max(0, head.count - 3)
            head += buffer[0..<n]
            // The head ends at the first empty line.
            if head.count >= 4, (searchFrom...(head.count - 4)).contains(where: { head[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) {
                break
            }
        }
        let line = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        guard line.count == 3, line[0] == "GET" else { return nil }
        return String(line[1])
    }

    private static func answer(_ fd: Int32, status: String, page: String) {
        let body = Array(page.utf8)
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    private static func page(_ title: String, _ text: String) -> String {
        func escape(_ s: String) -> String {
            s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
        }
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(escape(title))</title></head>"
            + "<body style=\"font: 16px system-ui, sans-serif; max-width: 30rem; margin: 3rem auto\">"
            + "<h1>\(escape(title))</h1><p id=\"message\">\(escape(text))</p></body></html>"
    }

    private static func failure(_ call: String) -> AuthClientError {
        AuthClientError(
            code: AuthClientError.connectionFailed, message: "cannot listen on 127.0.0.1 for the sign-in: \(call) failed (errno \(errno))")
    }
}

private extension Array where Element == String {
    /// The first two elements, the second empty when missing.
    var splitPair: (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}

private extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
