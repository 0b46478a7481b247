// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import ArgumentParser
import AuthProtocol
import AuthServer
import CommandSupport
import Foundation

/// `authsh audit`: reads the audit log of a server's database (a data directory, a SQLite
/// file or PostgreSQL), filtered, oldest first; one line per event, or one JSON object per
/// line with `--json`; with `--follow`, then the events as they are recorded.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "The audit log of a server's database, oldest first.",
        usage: """
            authsh audit [--data DIR | --database URL | --config FILE] [--app ID] [--user ID]
                         [--event NAME] [--since 1h|30m|2d|ISO-8601] [--limit 100] [--json] [--follow]
            """,
        discussion: """
            One line per event: time, app, event, outcome, then user=, provider=, address=, detail=,
            agent= and actor= where known. A missing database exits 1 (nothing is created); bad
            usage 64. --follow runs until interrupted.
            """)

    @OptionGroup var place: DatabaseOptions

    @Option(help: ArgumentHelp("Only this app's events.", valueName: "id"))
    var app: String?

    @Option(help: ArgumentHelp("Only this user's events.", valueName: "id"))
    var user: String?

    @Option(help: ArgumentHelp("Only this event (login, password_failed, register, ...).", valueName: "name"))
    var event: String?

    @Option(help: ArgumentHelp("Only events since then: 45s, 30m, 1h, 2d ago, or an ISO-8601 time.", valueName: "when"))
    var since: String?

    @Option(help: ArgumentHelp("The newest N events (1 to 100000; default 100).", valueName: "n"))
    var limit = 100

    @Flag(help: "One JSON object per line.")
    var json = false

    @Flag(name: [.short, .long], help: "Then print events as they are recorded (every second), until interrupted.")
    var follow = false

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit needs 1 to 100000") }
        if let since, AuditCommand.since(since) == nil {
            throw ValidationError("--since needs 45s, 30m, 1h, 2d or an ISO-8601 time")
        }
    }

    /// Unix seconds from `1h`, `30m`, `2d`, `45s` (that long ago) or an ISO-8601 time.
    static func since(_ text: String) -> Int64? {
        if let unit = text.last, let n = Int64(text.dropLast()), n >= 0 {
            let seconds: Int64? = ["s": 1, "m": 60, "h": 3600, "d": 86_400][unit]
            if let seconds { return Int64(Date().timeIntervalSince1970) - n * seconds }
        }
        return ISODate.parse(text).map { $0 / 1000 }
    }
}

/// Running `authsh audit`.
enum Audit {
    static func main(_ args: [String]) -> Int32 { CommandLineUsage.run(AuditCommand.self, args, read) }

    /// Prints the events the command selects (and, with `--follow`, those recorded after).
    private static func read(_ command: AuditCommand) -> Int32 {
        guard let configuration = command.place.configuration(command: "authsh audit") else { return Serve.configError }
        if let missing = DatabaseOptions.missingDatabase(configuration) {
            Output.error("authsh audit: no database at \(missing)")
            return ExitStatus.failure
        }
        let filter = AuditFilter(
            appId: command.app, userId: command.user, event: command.event,
            since: command.since.flatMap(AuditCommand.since), limit: command.limit)
        let asJSON = command.json, follow = command.follow
        return Serve.runBlocking {
            do {
                if follow {
                    try await followAuditLog(configuration, filter: filter) { events in
                        for event in events { print(asJSON ? line(json: event) : line(text: event)) }
                        fflush(nil)
                    }
                } else {
                    for event in try await readAuditLog(configuration, filter: filter).reversed() {
                        print(asJSON ? line(json: event) : line(text: event))
                    }
                }
                return 0
            } catch {
                Output.error("authsh audit: \(error)")
                return ExitStatus.failure
            }
        }
    }

    /// One line for a terminal: what a client sent (the user agent above all) shows printable
    /// ASCII only, so no control or direction-changing character can rewrite the screen.
    static func line(text e: AuditEvent) -> String {
        var parts = [ISODate.format(milliseconds: e.time * 1000), e.appId, e.event, e.outcome].map { printable($0, limit: 512) }
        if let v = e.userId { parts.append("user=\(printable(v))") }
        if let v = e.provider { parts.append("provider=\(printable(v))") }
        if let v = e.address { parts.append("address=\(printable(v))") }
        if let v = e.detail { parts.append("detail=\(quoted(printable(v, limit: 512)))") }
        if let v = e.userAgent { parts.append("agent=\(quoted(printable(v, limit: 512)))") }
        if let v = e.actor { parts.append("actor=\(printable(v))") }
        return parts.joined(separator: " ")
    }

    static func line(json e: AuditEvent) -> String {
        var d: EJSONDocument = [
            "id": .int64(e.id), "time": .string(ISODate.format(milliseconds: e.time * 1000)), "app": .string(e.appId),
            "event": .string(e.event), "outcome": .string(e.outcome),
        ]
        for (key, value) in [
            ("user", e.userId), ("provider", e.provider), ("address", e.address), ("userAgent", e.userAgent),
            ("detail", e.detail), ("actor", e.actor),
        ] {
            if let value { d[key] = .string(value) }
        }
        return TerminalText.safeJSON(EJSON.document(d).encodedString(.relaxed))
    }

    /// A value as one shell-safe-looking token: quoted when it has spaces or quotes.
    private static func quoted(_ s: String) -> String {
        s.contains(where: { $0 == " " || $0 == "\"" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : s
    }
}
