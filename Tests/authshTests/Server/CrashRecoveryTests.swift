// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Synchronization
import Testing

/// `authsh serve` killed with SIGKILL under load, three times over, as the OOM killer or an
/// operator's `kill -9` does, on each engine: started again on the same database, it serves at
/// once and has lost nothing it acknowledged (every user whose registration and login were
/// answered logs in as the same user, every anonymous session answered refreshes). SQLite's
/// restart also replays the write-ahead log each kill leaves, through the damage check
/// (``RecoveryCheckTests`` covers the damaged ones): a real crash's log must pass it.
///
/// On SQLite the load's writes share commits (group commit). Each round holds the database's
/// write lock from outside as the load starts, until writes queue for it, so batches form on a
/// machine of any load (the server's `/metrics` shows fewer commits than writes before each
/// kill), and the kill lands among them: a login answered is one whose batch had committed.
@Suite(.serialized, .binary, .timeLimit(.minutes(5))) struct CrashRecoveryTests {
    final class Load: Sendable {
        let users = Mutex<[(email: String, userId: String)]>([])
        let sessions = Mutex<[String]>([])
        /// Writes and commits of the server as its last scrape before a kill had them.
        let batching = Mutex<[(writes: Double, commits: Double)]>([])
        let running = Atomic<Bool>(true)
        var acknowledged: Int { users.withLock { $0.count } + sessions.withLock { $0.count } }
    }

    static let config = #"""
        {"apps": [{"id": "local", "rateLimits": {"enabled": false},
                   "providers": {"anon-user": {}, "local-userpass": {"autoConfirm": true}}}]}
        """#

    @Test(.timeLimit(.minutes(4)))
    func sqliteLosesNothingAcknowledgedWhenKilled() async throws {
        let dir = try Binary.temporaryDirectory()
        let batching = try await Self.killUnderLoad(["--data", dir + "/data"], engine: "SQLite", file: dir + "/data/authsh.sqlite")
        #expect(batching.contains { 0 < $0.commits && $0.commits < $0.writes }, "no write shared a commit: \(batching)")
    }

    @Test(.timeLimit(.minutes(4)))
    func postgresLosesNothingAcknowledgedWhenKilled() async throws {
        let cluster = try await PostgresCluster.shared()
        try await Self.killUnderLoad(["--database", cluster.url(database: try await cluster.makeDatabase())], engine: "PostgreSQL")
    }

    /// Three rounds of: start, load until 200 more answers, SIGKILL. Then a fourth start checks
    /// every acknowledged user and session. With `file` (SQLite), each round's load starts with
    /// that database's write lock held. Returns each round's writes and commits before its kill.
    @discardableResult
    static func killUnderLoad(
        _ database: [String], engine: String, file: String? = nil
    ) async throws -> [(writes: Double, commits: Double)] {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(config, to: dir + "/config.json")
        let arguments = database + ["--config", dir + "/config.json", "--metrics-port", "0"]
        let load = Load()
        var report: [String] = []
        for round in 1...3 {
            let started = ContinuousClock.now
            let process = try await ServerProcess(arguments, examplePlugins: false)
            let startup = started.duration(to: .now)
            let server = JSONHTTP(origin: process.origin)
            let before = load.acknowledged
            let running = Load()
            let loadStart = ContinuousClock.now
            var loadTime = Duration.zero
            var hold: SQLiteWriteHold?
            if let file { hold = try await SQLiteWriteHold(path: file) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<Self.clients {
                    group.addTask { await Self.client(client, round: round, server: server, into: load, while: running) }
                }
                if let hold {
                    // Released once two writes wait (the server's busy timeout, 5 s, must not run out).
                    _ = await PostgresRestartTests.waitFor(.seconds(4)) {
                        (try? await Self.scrape(process))?.sum("authsh_db_operations_in_flight", ["kind": "write"]) ?? 0 >= 2
                    }
                    try await hold.release()
                }
                let enough = await PostgresRestartTests.waitFor(.seconds(60)) { load.acknowledged >= before + 200 }
                #expect(enough != nil, "round \(round): the load never got going: \(Self.errors(process))")
                if let scrape = try? await Self.scrape(process) {
                    load.batching.withLock {
                        $0.append(
                            (scrape.sum("authsh_db_operations_total", ["kind": "write"]), scrape.sum("authsh_db_commits_total", [:])))
                    }
                }
                loadTime = loadStart.duration(to: .now)
                process.process.signal(SIGKILL)
                try await process.process.waitForExit()
                running.running.store(false, ordering: .relaxed)
                try await group.waitForAll()
            }
            let answered = load.acknowledged - before
            let perSecond = Double(answered) / (Double(loadTime.components.seconds) + Double(loadTime.components.attoseconds) / 1e18)
            report.append("round \(round): started in \(startup), \(answered) acknowledged at \(Int(perSecond))/s, killed")
        }
        let process = try await ServerProcess(arguments, examplePlugins: false)
        let server = JSONHTTP(origin: process.origin)
        let batching = load.batching.withLock { $0 }
        report.append("writes/commits before the kills: " + batching.map { "\(Int($0.writes))/\(Int($0.commits))" }.joined(separator: ", "))
        print("CrashRecoveryTests (\(engine)): " + report.joined(separator: "; "))
        for user in load.users.withLock({ $0 }) {
            let again = try await server.emailLogin(user.email, "password1")
            guard again.status == 200 && again["user_id"] == user.userId else {
                Issue.record("\(engine): \(user.email), acknowledged, does not log in as itself: \(again.status) \(again.text)")
                return batching
            }
        }
        for refresh in load.sessions.withLock({ $0 }) {
            let session = try await server.send(.POST, "/api/client/v2.0/auth/session", token: refresh)
            guard session.status == 201 else {
                Issue.record("\(engine): an acknowledged anonymous session does not refresh: \(session.status) \(session.text)")
                return batching
            }
        }
        return batching
    }

    /// Concurrent clients of the load: enough that writes queue for SQLite's writer. The first
    /// `registering` also register users (whose password hashing takes most of the time); the
    /// others log in anonymously, the cheapest login, whose writes come fastest.
    static let clients = 16
    static let registering = 4

    /// The server's `/metrics` (its `metrics on` line is in its output); throws until the line
    /// is there.
    static func scrape(_ process: ServerProcess) async throws -> PrometheusText {
        let output = try String(contentsOfFile: process.directory + "/out", encoding: .utf8)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("metrics on ") }),
            let url = URL(string: String(line.dropFirst("metrics on ".count))), let host = url.host, let port = url.port
        else { throw TerminalError(message: "no metrics listener in the server's output yet") }
        let origin = "http://\(host):\(port)"
        return try PrometheusText(try await JSONHTTP(origin: origin).send(.GET, "/metrics").text)
    }

    /// One client: registers and logs in, or logs in anonymously (the clients from `registering`
    /// on only that), until told to stop or the server is gone. Only what was answered in full
    /// is recorded.
    static func client(_ client: Int, round: Int, server: JSONHTTP, into load: Load, while running: Load) async {
        var n = 0
        while running.running.load(ordering: .relaxed) {
            n += 1
            do {
                if client >= Self.registering || n % 2 == 0 {
                    let login = try await server.send(.POST, server.app() + "/auth/providers/anon-user/login", json: "{}")
                    if login.status == 200, let refresh = login["refresh_token"] { load.sessions.withLock { $0.append(refresh) } }
                    continue
                }
                let email = "r\(round)-c\(client)-\(n)@example.com"
                let registered = try await server.send(
                    .POST, server.app() + "/auth/providers/local-userpass/register",
                    json: #"{"email":"\#(email)","password":"password1"}"#)
                guard registered.status == 201 else { continue }
                let login = try await server.emailLogin(email, "password1")
                if login.status == 200, let id = login["user_id"] { load.users.withLock { $0.append((email, id)) } }
            } catch {
                // The server was killed under this request: nothing was acknowledged.
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    static func errors(_ process: ServerProcess) -> String {
        String(((try? String(contentsOfFile: process.directory + "/err", encoding: .utf8)) ?? "").suffix(2000))
    }
}
