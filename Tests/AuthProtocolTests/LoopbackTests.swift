// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Testing

/// What may travel without TLS: https anywhere, http only to this machine, however the URL
/// is dressed up.
@Suite(.timeLimit(.minutes(5))) struct LoopbackTests {
    @Test func httpsAndThisMachineAreFine() {
        for url in [
            "https://auth.example.com", "HTTPS://x", "http://127.0.0.1:9090", "http://127.5.6.7/x", "http://localhost",
            "http://LOCALHOST:80/a?b", "http://[::1]:9090/", "http://user@127.0.0.1:9090",
        ] {
            #expect(Loopback.cleartextProblem(url: url) == nil, "\(url)")
        }
    }

    @Test func anythingElseOverHTTPIsAProblemNamingTheHost() {
        for (url, host) in [
            ("http://auth.example.com", "auth.example.com"), ("http://10.0.0.2:9090/", "10.0.0.2:9090"),
            ("http://127.0.0.1.evil.example", "127.0.0.1.evil.example"), ("http://127.0.0.1@evil.example/", "evil.example"),
            ("http://[::2]:1", "[::2]:1"), ("http://localhost.evil.example", "localhost.evil.example"),
            ("http://", ""),
        ] {
            let problem = Loopback.cleartextProblem(url: url)
            #expect(problem?.hasPrefix("http://\(host) is not this machine") == true, "\(url): \(problem ?? "nil")")
        }
        #expect(Loopback.cleartextProblem(url: "ftp://127.0.0.1") != nil)
    }

    /// Only the forms every parser reads alike: plain dotted decimal in 127/8, `::1`, and the
    /// name `localhost` exactly. Octal, hex, short and decimal forms, leading zeros, trailing
    /// dots, IPv4-mapped IPv6 and names that start like an address are not this machine.
    @Test func onlyTheUnambiguousFormsAreThisMachine() {
        for host in [
            "127.0.0.01", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.0.1", "2130706433", "127.0.0.1.",
            "localhost.", "127.www.attacker-example.com", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:0:0:2]",
            "127.0.0.256", "127.0.0.1:", "127.0.0.1:x", "[::1]x", "localhost:80:80", "127.0.0.+1", "127.0.0.１",
        ] {
            #expect(!Loopback.isLoopback(host: host), "\(host)")
            #expect(Loopback.cleartextProblem(url: "http://\(host)/") != nil, "\(host)")
        }
        for host in ["127.0.0.1", "127.255.0.9:8080", "[::1]", "[::1]:9090", "::1", "localhost", "LocalHost:80"] {
            #expect(Loopback.isLoopback(host: host), "\(host)")
        }
        #expect(Loopback.isLoopbackLiteral("127.0.0.1") && Loopback.isLoopbackLiteral("[::1]"))
        #expect(!Loopback.isLoopbackLiteral("localhost") && !Loopback.isLoopbackLiteral("127.0.0.1:80"))
        #expect(!Loopback.isLoopbackLiteral("[127.0.0.1]") && !Loopback.isLoopback(host: "[127.0.0.1]"))
    }
}
