// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Foundation
import Glibc
import Testing

/// RFC 3207 section 5: what a server (or a man in the middle) sends after its 220 to STARTTLS
/// and before TLS came in the clear, and must never be read as the answers to commands sent
/// under TLS. A scripted server on a loopback socket sends such a reply with its 220.
@Suite(.timeLimit(.minutes(5))) struct StartTLSInjectionTests {
    /// Listens on a loopback port, answers one client with `script` (each entry: wait for a
    /// line, then send the text; nil waits for nothing), then keeps the connection open.
    final class ScriptedServer: Sendable {
        let port: UInt16
        private let listener: Int32

        init(_ script: [(expect: String?, send: String)]) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in(
                sin_family: sa_family_t(AF_INET), sin_port: 0,
                sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard fd >= 0, bound, listen(fd, 1) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            listener = fd
            port = UInt16(bigEndian: address.sin_port)
            Thread.detachNewThread {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var pending: [UInt8] = []
                for step in script {
                    if step.expect != nil {
                        var byte: UInt8 = 0
                        while !pending.reversed().starts(with: [10]) {
                            guard read(client, &byte, 1) == 1 else { return }
                            pending.append(byte)
                        }
                        pending = []
                    }
                    _ = step.send.withCString { write(client, $0, strlen($0)) }
                }
                var buffer = [UInt8](repeating: 0, count: 512)
                while read(client, &buffer, buffer.count) > 0 {}
                close(client)
            }
        }

        deinit { close(listener) }
    }

    @Test func repliesSentWithTheSTARTTLS220AreRefused() async throws {
        let server = try ScriptedServer([
            (nil, "220 test ESMTP\r\n"),
            ("EHLO", "250-test\r\n250 STARTTLS\r\n"),
            // The 220, and in the same packet a reply meant to answer what comes under TLS.
            ("STARTTLS", "220 go ahead\r\n250 injected\r\n"),
        ])
        var c = MailConfiguration(host: "localhost", port: Int(server.port), security: .starttls, from: "no-reply@example.com")
        c.commandTimeoutSeconds = 5
        let error = await SMTPClientTests.failure { try await SMTPClient(configuration: c).send(SMTPClientTests.message()) }
        #expect(error?.reason.contains("sent more after its 220") == true, "\(String(describing: error))")
    }
}
