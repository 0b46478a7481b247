// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Glibc
import Testing

/// A slow or idle client does not hold a connection forever.
@Suite(.timeLimit(.minutes(5))) struct ConnectionTests {
    @Test(arguments: ["", "GET /api/client/v2.0/app/local/location HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "])
    func anIdleOrHalfSentRequestIsClosed(sent: String) async throws {
        var config = TestServer.configuration()
        config.idleTimeout = .seconds(1)
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            let closed = try await RawHTTP.closesAfter(sending: sent, port: port)
            #expect(closed, "the server kept the connection past its idle timeout")
        }
    }
}
