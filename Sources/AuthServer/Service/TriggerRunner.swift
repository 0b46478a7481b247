// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging
import Lua
import LuaEJSON
import ServiceLifecycle

/// Runs the apps' authentication triggers (``TriggerConfiguration``) after the fact, at least
/// once, on any instance sharing the database.
///
/// A change that causes an event (a user created, a login, a user deleted) writes the runs of
/// the triggers that follow it in its own transaction (``runs(of:user:providers:app:)``); this
/// worker then leases each run, calls the trigger's function with App Services' `authEvent`
/// (`{operationType, providers, user = {id, type, identities, data, custom_data}, time}`)
/// under the trigger's own deadline, and tries a run that fails again with back-off until the
/// trigger's `giveUpAfterSeconds`; then the run is given up with its last error kept, and the
/// audit log gets a `trigger_failed` event. A process killed during a run leaves it leased:
/// another attempt follows once the lease ends (a trigger may run twice for one event, never
/// zero times).
final class TriggerRunner: Service, Sendable {
    let store: any TriggerRunStore & UserStore
    let clock: ServerClock
    let apps: [String: AppRuntime]
    let functions: PluginFunctions
    let logger: Logger
    let auditWriter: AuditWriter?
    private let worker: QueueWorker<TriggerRun>

    /// Retries as the mail queue's; a lease outlasts the longest deadline a trigger may have.
    static let policy = RetryPolicy(lease: 150)

    init(
        store: any TriggerRunStore & UserStore, clock: ServerClock, apps: [String: AppRuntime], functions: PluginFunctions, logger: Logger,
        auditWriter: AuditWriter?, policy: RetryPolicy = TriggerRunner.policy
    ) {
        self.store = store
        self.clock = clock
        self.apps = apps
        self.functions = functions
        self.logger = logger
        self.auditWriter = auditWriter
        let rows = QueueWorker<TriggerRun>.Rows(
            leaseDue: { [apps] now, until in
                // A server whose apps have no trigger reads no queue: runs exist only where a
                // config has triggers, and instances that share a database share their config.
                guard apps.values.contains(where: { !$0.config.triggers.isEmpty }) else { return nil }
                return try await store.leaseDueTriggerRun(now: now, leaseUntil: until)
            },
            lease: { id, now, until in try await store.leaseTriggerRun(id: id, now: now, leaseUntil: until) },
            finish: { run, failed, reason, at in
                try await store.finishTriggerRun(id: run.id, attempt: run.attempts, state: failed ? .failed : .done, error: reason, at: at)
            },
            retry: { run, reason, next in try await store.retryTriggerRun(id: run.id, attempt: run.attempts, error: reason, next: next) })
        var workerPolicy = policy
        // Each trigger gives up on its own time (checked in `attempt`); the worker's is the longest.
        workerPolicy.giveUpAfter = .max
        // Four runs at once: one after another, a run's three commits (its lease, its plugin's
        // writes, its outcome) bounded PostgreSQL's throughput below a login rate (scripts/soak).
        worker = QueueWorker(
            "trigger", rows: rows, clock: clock, policy: workerPolicy, logger: logger, concurrency: Self.concurrency,
            work: { [apps, functions, clock, logger] run in
                await Self.attempt(run, apps: apps, functions: functions, clock: clock, logger: logger)
            },
            report: { [logger, auditWriter, clock] run, report in
                Self.report(run, report, logger: logger, auditWriter: auditWriter, clock: clock)
            })
    }

    /// How many trigger runs one instance works at once. Runs of one user may end out of
    /// order, as they may with several instances.
    static let concurrency = 4

    /// Runs were queued by this process: the worker looks at the queue now.
    func queued() { worker.signal() }

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.worker.run() }
    }

    // MARK: Events

    /// The runs of the app's triggers that follow `operation` for `user`, to be written with
    /// the change: `providers` are the login's provider (create, login) or the user's (delete).
    static func runs(
        of operation: TriggerConfiguration.Operation, user: UserRecord, providers: [String], app: AppRuntime, clock: ServerClock
    ) -> [TriggerRun] {
        let triggers = app.config.triggers.filter { $0.follows(operation, providers: providers) }
        guard !triggers.isEmpty else { return [] }
        let now = clock.now
        let event: EJSON = [
            "operationType": .string(operation.rawValue), "providers": .array(providers.map(EJSON.string)),
            "user": AuthHooks.user(user), "time": .date(now * 1000),
        ]
        let text = event.encodedString(.canonical)
        return triggers.map {
            TriggerRun(
                id: clock.newId(), appId: app.id, trigger: $0.name, function: $0.functionName, operation: operation.rawValue,
                event: text, createdAt: now)
        }
    }

    /// Deletes `user`, queueing the runs of the app's `DELETE` triggers in the same transaction.
    func deleteUser(_ user: UserRecord, app: AppRuntime) async throws {
        let providers = user.identities.map(\.providerType).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let runs = Self.runs(of: .delete, user: user, providers: providers, app: app, clock: clock)
        try await store.deleteUser(id: user.id, app: app.id, events: runs)
        if !runs.isEmpty { queued() }
    }

    /// Waits until none of the app's runs is queued, or `timeout` passes; returns how many are
    /// (the dev API's wait: "after this login, my trigger ran").
    func waitUntilDone(app: String, timeout: Duration) async throws -> Int {
        queued()
        let deadline = ContinuousClock.now + timeout
        while true {
            let pending = try await store.queuedTriggerRunCount(app: app)
            if pending == 0 || ContinuousClock.now >= deadline { return pending }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A run as the dev and admin APIs show it.
    static func json(_ run: TriggerRun) -> EJSON {
        [
            "id": .string(run.id), "trigger": .string(run.trigger), "function": .string(run.function),
            "operation": .string(run.operation), "state": .string(run.state.rawValue), "attempts": .int64(Int64(run.attempts)),
            "lastError": run.lastError.map(EJSON.string) ?? .null, "createdAt": .int64(run.createdAt),
            "finishedAt": run.finishedAt.map(EJSON.int64) ?? .null, "event": (try? EJSON(parsing: run.event)) ?? .null,
        ]
    }

    // MARK: Running

    private static func attempt(
        _ run: TriggerRun, apps: [String: AppRuntime], functions: PluginFunctions, clock: ServerClock, logger: Logger
    ) async -> QueueWorker<TriggerRun>.Outcome {
        guard let app = apps[run.appId] else { return .failed("the app is no longer served") }
        guard let trigger = app.config.triggers.first(where: { $0.name == run.trigger }), !trigger.disabled else {
            return .failed("the trigger is no longer configured, or disabled")
        }
        guard let event = try? EJSON(parsing: run.event) else { return .failed("unreadable event") }
        let outcome: QueueWorker<TriggerRun>.Outcome
        do {
            _ = try await functions.runPlugin(
                trigger.functionName, app: app, arguments: [LuaEJSON.lua(event)], deadline: .seconds(trigger.timeLimitSeconds),
                inline: false)
            outcome = .done
        } catch {
            let reason: String
            if let lua = error as? LuaError {
                reason = lua.code == .timeout ? "time limit of \(trigger.timeLimitSeconds) s exceeded" : lua.message
                if lua.code == .runtime {
                    logger.warning(
                        "trigger failed: \(lua.message)",
                        metadata: ["app": "\(app.id)", "trigger": "\(trigger.name)", "traceback": "\(lua.traceback ?? "")"])
                }
            } else {
                reason = "\(error)"
            }
            outcome = .retry(reason)
        }
        if case .retry(let reason) = outcome, clock.now - run.createdAt >= trigger.giveUpAfterSeconds {
            return .failed("gave up after \(run.attempts) attempts in \(trigger.giveUpAfterSeconds) s: \(reason)")
        }
        return outcome
    }

    private static func report(
        _ run: TriggerRun, _ report: QueueWorker<TriggerRun>.Report, logger: Logger, auditWriter: AuditWriter?, clock: ServerClock
    ) {
        let metadata: Logger.Metadata = ["app": "\(run.appId)", "trigger": "\(run.trigger)", "run": "\(run.id)", "attempt": "\(run.attempts)"]
        switch report {
        case .done:
            logger.debug("trigger ran", metadata: metadata)
        case .retried(let reason):
            logger.notice("trigger run failed; will try again", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
        case .gaveUp(let reason):
            logger.warning("trigger run given up", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
            guard let auditWriter else { return }
            let event = AuditEvent(
                time: clock.now, appId: run.appId, event: "trigger_failed", outcome: "failure", userId: nil, address: nil,
                userAgent: nil, detail: "\(run.trigger) (\(run.operation)): \(reason)")
            Task {
                do { try await auditWriter.write([event]) } catch {
                    logger.error("audit log unavailable", metadata: ["error": "\(error)", "event": "trigger_failed"])
                }
            }
        }
    }
}

extension TriggerRun: QueuedJob {}
