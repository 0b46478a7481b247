// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import Prometheus
import Synchronization

/// What the server counts for `/metrics` (Prometheus text format, on its own listener).
///
/// One registry per server, not swift-metrics' process-wide one, so that several servers in
/// one process (the tests, the embedded dev server) count apart. Every label takes values
/// from a bounded set the server chooses (a route's pattern, a known provider, a fixed event
/// name): nothing a client sends becomes a label as it is, so no request can grow the
/// registry. The metric objects for a label set are made once and kept, so a request costs a
/// dictionary lookup and a few atomic adds.
///
/// The families (all prefixed `authsh_`):
/// - `http_requests_total{route,method,status}`, `http_request_duration_seconds{route,method}`
/// - `logins_total{provider,outcome}`, `auth_events_total{event,outcome}`
/// - `plugin_calls_total{outcome}` (`ok`, `error`, `killed_time`, `killed_memory`)
/// - `mail_deliveries_total{outcome}` (`sent`, `retried`, `failed`), `mail_queue_depth`
/// - `db_operations_in_flight{kind}`, `db_operations_total{kind}`, `db_pool_connections`,
///   `db_commits_total` (write operations over commits: how many writes a commit holds)
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let counters = Mutex<[Key: Counter]>([:])
    private let histograms = Mutex<[Key: DurationHistogram]>([:])
    private let mailQueueDepth: Gauge
    private let dbInFlight: [DatabaseMeter.Kind: Gauge]
    private let dbTotal: [DatabaseMeter.Kind: Counter]
    private let dbPool: Gauge
    private let dbCommits: Counter
    /// The store's running totals at the last scrape, by name: their counters move by the
    /// difference (``advance(_:_:to:)``).
    private let exported = Mutex<[String: Int]>([:])

    /// Latency buckets, 1 ms to 10 s.
    static let buckets: [Duration] = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000].map { .microseconds(Int64($0 * 1000)) }

    public init() {
        let registry = registry
        mailQueueDepth = registry.makeGauge(descriptor: Family.mailQueueDepth.descriptor)
        dbInFlight = Dictionary(
            uniqueKeysWithValues: DatabaseMeter.Kind.allCases.map {
                ($0, registry.makeGauge(descriptor: Family.dbInFlight.descriptor, labels: [("kind", $0.rawValue)]))
            })
        dbTotal = Dictionary(
            uniqueKeysWithValues: DatabaseMeter.Kind.allCases.map {
                ($0, registry.makeCounter(descriptor: Family.dbTotal.descriptor, labels: [("kind", $0.rawValue)]))
            })
        dbPool = registry.makeGauge(descriptor: Family.dbPool.descriptor)
        dbCommits = registry.makeCounter(descriptor: Family.dbCommits.descriptor)
    }

    // MARK: Counting

    /// One request answered: `route` is the router's pattern (`{app}` for the app's id), or
    /// `unmatched`.
    func request(route: String, method: String, status: Int, duration: Duration) {
        counter(.httpRequests, [("route", route), ("method", method), ("status", String(status))]).increment()
        histogram(.httpDuration, [("route", route), ("method", method)]).record(duration)
    }

    /// An auth event as the audit log has it.
    func authEvent(_ event: String, outcome: String) {
        counter(.authEvents, [("event", event), ("outcome", outcome)]).increment()
    }

    /// A login request (not a link) and how it ended; `provider` nil for one the app lacks.
    func login(provider: String?, outcome: String) {
        counter(.logins, [("provider", provider ?? "unknown"), ("outcome", outcome)]).increment()
    }

    /// How a plugin call ended: `ok`, `error`, `killed_time` or `killed_memory`.
    func pluginCall(_ outcome: String) {
        counter(.pluginCalls, [("outcome", outcome)]).increment()
    }

    /// How one delivery attempt ended: `sent`, `retried` or `failed` (given up).
    func mailDelivery(_ outcome: String) {
        counter(.mailDeliveries, [("outcome", outcome)]).increment()
    }

    // MARK: Exporting

    /// The text exposition of everything counted, with the sampled values (queue depth,
    /// database use) read now. A queue that cannot be read is left at its last value.
    func render(store: any MailQueueStore) async -> [UInt8] {
        if let depth = try? await store.queuedMailCount() { mailQueueDepth.set(Double(depth)) }
        if let metered = store as? any MeteredStore {
            let meter = metered.meter
            for kind in DatabaseMeter.Kind.allCases {
                dbInFlight[kind]?.set(Double(meter.inFlight(kind)))
                advance(dbTotal[kind], kind.rawValue, to: meter.total(kind))
            }
            dbPool.set(Double(meter.poolSize))
            advance(dbCommits, "commits", to: metered.transactionsCommitted)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16_384)
        registry.emit(into: &buffer)
        return buffer
    }

    /// Moves `counter` up to `total`, a running total the store keeps (named `name`), by what
    /// it grew since the last scrape.
    private func advance(_ counter: Counter?, _ name: String, to total: Int) {
        let step = exported.withLock { exported in
            defer { exported[name] = total }
            return total - (exported[name] ?? 0)
        }
        if step > 0 { counter?.increment(by: Int64(step)) }
    }

    // MARK: Families

    /// A family and its label values: one metric object.
    private struct Key: Hashable {
        var family: Family
        var labels: [String]
    }

    private func counter(_ family: Family, _ labels: [(String, String)]) -> Counter {
        let key = Key(family: family, labels: labels.map(\.1))
        if let found = counters.withLock({ $0[key] }) { return found }
        let made = registry.makeCounter(descriptor: family.descriptor, labels: labels)
        counters.withLock { $0[key] = made }
        return made
    }

    private func histogram(_ family: Family, _ labels: [(String, String)]) -> DurationHistogram {
        let key = Key(family: family, labels: labels.map(\.1))
        if let found = histograms.withLock({ $0[key] }) { return found }
        let made = registry.makeDurationHistogram(descriptor: family.descriptor, labels: labels, buckets: Self.buckets)
        histograms.withLock { $0[key] = made }
        return made
    }

    /// Every family, with its name and help written once (the registry refuses a second help).
    enum Family: Hashable {
        case httpRequests, httpDuration, logins, authEvents, pluginCalls, mailDeliveries, mailQueueDepth
        case dbInFlight, dbTotal, dbPool, dbCommits

        var descriptor: MetricNameDescriptor {
            switch self {
            case .httpRequests: d("http_requests", "total", "Requests answered, by route pattern, method and status.")
            case .httpDuration: d("http_request_duration", "seconds", "Time to answer a request, by route pattern and method.")
            case .logins: d("logins", "total", "Logins (not links), by provider and outcome.")
            case .authEvents: d("auth_events", "total", "Audit-log events, by event and outcome (counted with or without auditLog).")
            case .pluginCalls: d("plugin_calls", "total", "Plugin function calls, by outcome: ok, error, killed_time, killed_memory.")
            case .mailDeliveries: d("mail_deliveries", "total", "Mail delivery attempts, by outcome: sent, retried, failed (given up).")
            case .mailQueueDepth: d("mail_queue_depth", "", "Mails waiting for delivery, read at the scrape.")
            case .dbInFlight: d("db_operations_in_flight", "", "Database operations holding or waiting for a connection, by kind.")
            case .dbTotal: d("db_operations", "total", "Database operations since start, by kind (read at the scrape).")
            case .dbCommits: d("db_commits", "total", "Write transactions committed (SQLite: a commit may hold several write operations).")
            case .dbPool: d("db_pool", "connections", "Connections the store may open at once (SQLite: readers plus the writer).")
            }
        }

        private func d(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "authsh", metricName: name, unitName: unit, helpText: help)
        }
    }
}
