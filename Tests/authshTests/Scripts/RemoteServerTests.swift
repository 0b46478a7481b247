// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `--server URL --app ID` against a separately started `authsh serve`.
@Suite(.binary, .timeLimit(.minutes(5))) struct RemoteServerTests {
    @Test func talksToAServeDevProcess() async throws {
        let server = try await ServerProcess(["--dev"])
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.run([
            "--server", server.origin, "--app", "local", "--data", data, "-e",
            """
            register{ email = "far@example.com", password = "far-away" }
            confirm(outbox{ email = "far@example.com" }[1])
            local u = login(credentials.emailPassword("far@example.com", "far-away"))
            print(app.server, u.profile.email)
            """,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "\(server.origin)\tfar@example.com\n")
        // The embedded server was never started, and the user is filed under that server.
        #expect(!FileManager.default.fileExists(atPath: data + "/server"))
        let stores = try FileManager.default.contentsOfDirectory(atPath: data + "/users")
        #expect(stores.count == 1 && stores[0].hasPrefix("http___127.0.0.1_"))
        // AUTHSH_SERVER / AUTHSH_APP work as the options do.
        let env = try await Binary.run(
            ["--data", data, "-e", "print(whoami().profile.email)"],
            environment: ["AUTHSH_SERVER": server.origin, "AUTHSH_APP": "local"])
        #expect(env.stdout == "far@example.com\n")
    }

    @Test func devHelpersAgainstAProductionServerSaySo() async throws {
        let server = try await ServerProcess([])
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.run([
            "--server", server.origin, "--data", data, "-e",
            """
            local ok, err = pcall(outbox, { email = "x@example.com" })
            print(err.code, err.message)
            print(login(credentials.anonymous()).isAnonymous)
            """,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout
                == "ServerNotInDevMode\t\(server.origin) is not in dev mode (the dev API, outbox included, needs a server started with --dev)\ntrue\n"
        )
    }

    @Test func anUnreachableServerIsAConnectionError() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.run([
            "--server", "http://127.0.0.1:9", "--data", data, "-e",
            """
            local ok, err = pcall(login, credentials.anonymous())
            print(err.code)
            """,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ConnectionFailed\n")
    }

    /// AUTHSH_SERVER is checked like --server: a URL that is not http(s) is bad usage.
    @Test func aBadServerInTheEnvironmentIsBadUsage() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.run(["--data", data, "-e", "print(1)"], environment: ["AUTHSH_SERVER": "127.0.0.1:9090"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("AUTHSH_SERVER: an http:// or https:// URL is needed, got '127.0.0.1:9090'"), "\(r.stderr)")
    }
}
