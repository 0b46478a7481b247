import AsyncHTTPClient
import Foundation
import PostgresTestSupport
import Testing

/// Two real `authsh serve` processes on one PostgreSQL database (a private cluster the tests
/// start), and `authsh serve ... migrate`.
@Suite struct SharedDatabaseServeTests {
    static func post(_ url: String, _ json: String, token: String? = nil) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(Array(json.utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func get(_ url: String, token: String? = nil) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func field(_ name: String, in json: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(object[name] as? String, "\(name) in \(json)")
    }

    @Test func twoProcessesShareUsersAndSessions() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.makeDatabase())
        // Migrating first is optional (each server migrates at start-up); it is idempotent.
        for _ in 1...2 {
            let migrate = try Binary.run(["serve", "--database", url, "migrate"])
            #expect(migrate.status == 0 && migrate.stdout.hasPrefix("migrated postgres://authsh@"), "\(migrate.stderr)")
        }
        let a = try ServerProcess(["--dev", "--database", url], examplePlugins: false)
        let b = try ServerProcess(["--dev", "--database", url], examplePlugins: false)
        let appA = a.origin + "/api/client/v2.0/app/local", appB = b.origin + "/api/client/v2.0/app/local"

        #expect(try await Self.post(appA + "/auth/providers/local-userpass/register", #"{"email":"two@example.com","password":"password1"}"#).0 == 201)
        let (_, outbox) = try await Self.get(a.origin + "/api/dev/v1/apps/local/outbox?email=two@example.com&kind=confirm")
        let mail = try #require(try JSONSerialization.jsonObject(with: Data(outbox.utf8)) as? [[String: Any]]).last
        let token = try #require(mail?["token"] as? String), tokenId = try #require(mail?["tokenId"] as? String)
        #expect(try await Self.post(appB + "/auth/providers/local-userpass/confirm", #"{"token":"\#(token)","tokenId":"\#(tokenId)"}"#).0 == 200)

        let (status, login) = try await Self.post(appB + "/auth/providers/local-userpass/login", #"{"username":"two@example.com","password":"password1"}"#)
        #expect(status == 200, "\(login)")
        let access = try Self.field("access_token", in: login), refresh = try Self.field("refresh_token", in: login)
        #expect(try await Self.get(a.origin + "/api/client/v2.0/auth/profile", token: access).0 == 200, "B's token works on A")
        // Logged out on A: the session ends on B at once.
        var logout = HTTPClientRequest(url: a.origin + "/api/client/v2.0/auth/session")
        logout.method = .DELETE
        logout.headers.add(name: "Authorization", value: "Bearer \(refresh)")
        #expect(try await HTTPClient.shared.execute(logout, timeout: .seconds(20)).status.code == 200)
        #expect(try await Self.get(b.origin + "/api/client/v2.0/auth/profile", token: access).0 == 401)
    }

    @Test func aPasswordOnTheCommandLineIsRefused() throws {
        let r = try Binary.run(["serve", "--database", "postgres://u:hunter2@db.example.com/authsh", "migrate"])
        #expect(r.status == 64 && r.stderr.contains("give it in PGPASSWORD"), "\(r.stderr)")
        #expect(!r.stderr.contains("hunter2"))
    }
}
