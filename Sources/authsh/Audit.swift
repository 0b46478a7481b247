import AuthProtocol
import AuthServer
import Foundation

/// `authsh audit`: reads the audit log of a server's database (a data directory, a SQLite
/// file or PostgreSQL), filtered, oldest first; one line per event, or one JSON object per
/// line with `--json`.
enum Audit {
    static let usage = """
        usage: authsh audit [--data DIR | --database URL | --config FILE] [--app ID] [--user ID]
                            [--event NAME] [--since 1h|30m|2d|ISO-8601] [--limit 100] [--json]
        """

    static func main(_ args: [String]) -> Int32 {
        var config = ServerConfiguration()
        config.database = .directory(Paths.defaultDataDirectory())
        var filter = AuditFilter()
        var json = false
        var i = 0
        func value() -> String? {
            i += 1
            return i < args.count ? args[i] : nil
        }
        func bad(_ message: String) -> Int32 {
            Output.error("authsh audit: \(message)\n\(usage)")
            return ExitStatus.usage
        }
        while i < args.count {
            switch args[i] {
            case "-h", "--help":
                print(usage)
                return 0
            case "--data":
                guard let v = value() else { return bad("--data needs a directory") }
                config.database = .directory(v)
            case "--database":
                guard let v = value() else { return bad("--database needs sqlite:PATH or a postgres:// URL") }
                do { config.database = try ServerConfiguration.Database.parse(v, key: "--database", passwordAllowed: false) } catch {
                    return bad("\(error)")
                }
            case "--config":
                guard let v = value(), let bytes = Files.read(v) else { return bad("--config needs a readable file") }
                do { try config.loadConfig(bytes, file: v) } catch {
                    Output.error("authsh audit: \(error)")
                    return Serve.configError
                }
            case "--app": filter.appId = value()
            case "--user": filter.userId = value()
            case "--event": filter.event = value()
            case "--since":
                guard let v = value(), let since = since(v) else { return bad("--since needs 1h, 30m, 2d or an ISO-8601 time") }
                filter.since = since
            case "--limit":
                guard let v = value(), let n = Int(v), (1...100_000).contains(n) else { return bad("--limit needs 1 to 100000") }
                filter.limit = n
            case "--json": json = true
            default: return bad("unknown option '\(args[i])'")
            }
            i += 1
        }
        if case .directory(let dir) = config.database, !FileManager.default.fileExists(atPath: dir + "/authsh.sqlite") {
            Output.error("authsh audit: no database at \(dir)/authsh.sqlite")
            return ExitStatus.failure
        }
        let configuration = config, query = filter, asJSON = json
        return Serve.runBlocking {
            do {
                for event in try await readAuditLog(configuration, filter: query).reversed() {
                    print(asJSON ? line(json: event) : line(text: event))
                }
                return 0
            } catch {
                Output.error("authsh audit: \(error)")
                return ExitStatus.failure
            }
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

    static func line(text e: AuditEvent) -> String {
        var parts = [ISODate.format(milliseconds: e.time * 1000), e.appId, e.event, e.outcome]
        if let v = e.userId { parts.append("user=\(v)") }
        if let v = e.provider { parts.append("provider=\(v)") }
        if let v = e.address { parts.append("address=\(v)") }
        if let v = e.detail { parts.append("detail=\(quoted(v))") }
        if let v = e.userAgent { parts.append("agent=\(quoted(v))") }
        if let v = e.actor { parts.append("actor=\(v)") }
        return parts.joined(separator: " ")
    }

    static func line(json e: AuditEvent) -> String {
        var d: EJSONDocument = ["id": .int64(e.id), "time": .string(ISODate.format(milliseconds: e.time * 1000)), "app": .string(e.appId),
                                "event": .string(e.event), "outcome": .string(e.outcome)]
        for (key, value) in [("user", e.userId), ("provider", e.provider), ("address", e.address), ("userAgent", e.userAgent),
                             ("detail", e.detail), ("actor", e.actor)] {
            if let value { d[key] = .string(value) }
        }
        return EJSON.document(d).encodedString(.relaxed)
    }

    /// A value as one shell-safe-looking token: quoted when it has spaces or quotes.
    private static func quoted(_ s: String) -> String {
        s.contains(where: { $0 == " " || $0 == "\"" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : s
    }
}
