import AuthProtocol
import Testing

/// What may travel without TLS: https anywhere, http only to this machine, however the URL
/// is dressed up.
@Suite struct LoopbackTests {
    @Test func httpsAndThisMachineAreFine() {
        for url in ["https://auth.example.com", "HTTPS://x", "http://127.0.0.1:9090", "http://127.5.6.7/x", "http://localhost",
                    "http://LOCALHOST:80/a?b", "http://[::1]:9090/", "http://user@127.0.0.1:9090"] {
            #expect(Loopback.cleartextProblem(url: url) == nil, "\(url)")
        }
    }

    @Test func anythingElseOverHTTPIsAProblemNamingTheHost() {
        for (url, host) in [("http://auth.example.com", "auth.example.com"), ("http://10.0.0.2:9090/", "10.0.0.2:9090"),
                            ("http://127.0.0.1.evil.example", "127.0.0.1.evil.example"), ("http://127.0.0.1@evil.example/", "evil.example"),
                            ("http://[::2]:1", "[::2]:1"), ("http://localhost.evil.example", "localhost.evil.example"),
                            ("http://", "")] {
            let problem = Loopback.cleartextProblem(url: url)
            #expect(problem?.hasPrefix("http://\(host) is not this machine") == true, "\(url): \(problem ?? "nil")")
        }
        #expect(Loopback.cleartextProblem(url: "ftp://127.0.0.1") != nil)
    }
}
