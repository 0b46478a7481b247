// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `authsh serve` on every address, reached from another address of this machine: a client that
/// is not on loopback is not "this machine", whatever `Host` it names, so neither the admin API
/// nor the admin page takes a key from it over plain http. (The in-process test servers listen
/// on loopback only; this needs the real command.)
@Suite(.binary, .timeLimit(.minutes(5))) struct AdminChannelTests {
    @Test(.enabled(if: Self.otherAddress != nil, "this machine has no address but loopback"))
    func aLoopbackHostFromAnotherAddressIsNotThisMachine() async throws {
        let directory = try Binary.temporaryDirectory()
        let config = directory + "/config.json"
        try Data(#"{"adminKeys": [{"name": "ops", "key": {"env": "TEST_CHANNEL_KEY"}}], "apps": [{"id": "local"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        setenv("TEST_CHANNEL_KEY", AdminCommandTests.key, 1)
        let (server, origin) = try await ServerProcess.spawn(
            ["--host", "0.0.0.0", "--config", config, "--data", directory + "/data"],
            log: directory + "/serve.log")
        defer { server.stop() }
        let port = try #require(origin.split(separator: ":").last.flatMap { Int($0) })
        let other = try #require(Self.otherAddress)
        let page = "GET /admin/login HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
        let api =
            "GET /api/admin/v1/apps/local/users HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Authorization: Bearer \(AdminCommandTests.key)\r\nConnection: close\r\n\r\n"
        // From loopback: the form, and the users.
        let localPage = try Self.exchange(page, address: "127.0.0.1", port: port)
        #expect(localPage.hasPrefix("HTTP/1.1 200") && localPage.contains(#"name="key""#), "\(localPage.prefix(200))")
        #expect(try Self.exchange(api, address: "127.0.0.1", port: port).hasPrefix("HTTP/1.1 200"))
        // From another address, naming the same loopback host: no form, and the key refused unread.
        let remotePage = try Self.exchange(page, address: other, port: port)
        #expect(remotePage.hasPrefix("HTTP/1.1 403") && !remotePage.contains(#"name="key""#), "\(remotePage.prefix(200))")
        let remoteAPI = try Self.exchange(api, address: other, port: port)
        #expect(remoteAPI.hasPrefix("HTTP/1.1 403") && remoteAPI.contains("adminOverHTTP"), "\(remoteAPI.prefix(300))")
    }

    /// authsh listens in plain http only: a client from another address that names `publicURL`'s
    /// https host reached it without TLS (a browser sent to `http://` that name, on a port the
    /// server listens on), so it gets no form and its key is refused. A TLS terminator that adds
    /// no headers counts only from this machine or from `trustedProxies`.
    @Test(.enabled(if: Self.otherAddress != nil, "this machine has no address but loopback"), arguments: [false, true])
    func thePublicHostFromAnotherAddressIsHTTPSOnlyThroughATrustedProxy(otherIsTrusted: Bool) async throws {
        let directory = try Binary.temporaryDirectory()
        let other = try #require(Self.otherAddress)
        let config = directory + "/config.json"
        let proxies = otherIsTrusted ? "[\"" + other + "\"]" : "[]"
        try Data(
            #"""
            {"publicURL": "https://auth.example.com", "trustedProxies": \#(proxies),
             "adminKeys": [{"name": "ops", "key": {"env": "TEST_CHANNEL_KEY"}}], "apps": [{"id": "local"}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: config))
        setenv("TEST_CHANNEL_KEY", AdminCommandTests.key, 1)
        let (server, origin) = try await ServerProcess.spawn(
            ["--host", "0.0.0.0", "--config", config, "--data", directory + "/data"],
            log: directory + "/serve.log")
        defer { server.stop() }
        let port = try #require(origin.split(separator: ":").last.flatMap { Int($0) })
        let page = "GET /admin/login HTTP/1.1\r\nHost: auth.example.com\r\nConnection: close\r\n\r\n"
        let api =
            "GET /api/admin/v1/apps/local/users HTTP/1.1\r\nHost: auth.example.com\r\n"
            + "Authorization: Bearer \(AdminCommandTests.key)\r\nConnection: close\r\n\r\n"
        // From this machine (a terminator beside the server): https.
        let localPage = try Self.exchange(page, address: "127.0.0.1", port: port)
        #expect(
            localPage.hasPrefix("HTTP/1.1 200") && localPage.contains(#"action="https://auth.example.com/admin/login""#), "\(localPage.prefix(300))")
        #expect(try Self.exchange(api, address: "127.0.0.1", port: port).hasPrefix("HTTP/1.1 200"))
        // From another address: https only if it is a trusted proxy.
        let remotePage = try Self.exchange(page, address: other, port: port)
        let remoteAPI = try Self.exchange(api, address: other, port: port)
        if otherIsTrusted {
            #expect(remotePage.hasPrefix("HTTP/1.1 200") && remotePage.contains(#"name="key""#), "\(remotePage.prefix(300))")
            #expect(remoteAPI.hasPrefix("HTTP/1.1 200"), "\(remoteAPI.prefix(300))")
        } else {
            #expect(remotePage.hasPrefix("HTTP/1.1 403") && !remotePage.contains(#"name="key""#), "\(remotePage.prefix(300))")
            #expect(remoteAPI.hasPrefix("HTTP/1.1 403") && remoteAPI.contains("adminOverHTTP"), "\(remoteAPI.prefix(300))")
        }
    }

    /// One of this machine's IPv4 addresses that is not a loopback one, if it has any.
    static let otherAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard let text = inet_ntoa(ipv4).map({ String(cString: $0) }), !text.hasPrefix("127.") else { continue }
            return text
        }
        return nil
    }()

    /// Sends `request` as it is to `address`:`port` and returns what came back before the close.
    static func exchange(_ request: String, address: String, port: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_port = in_port_t(UInt16(port).bigEndian)
        peer.sin_addr.s_addr = inet_addr(address)
        let connected = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TerminalError(message: "connect to \(address):\(port): errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw TerminalError(message: "send: errno \(errno)")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
