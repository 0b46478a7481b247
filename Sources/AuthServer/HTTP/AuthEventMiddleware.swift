// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird
import Logging

/// Records the auth events of each request: one per audited request (``AuditRoute``), with
/// its outcome, the user and app it acted for, the client's address and user agent, plus the
/// events the code recorded on the way (``AuditTrail``). They go to the audit log (`auditLog`)
/// and to the metrics (`--metrics-port`), whichever are on.
///
/// Never a request or response body: no password, token or key reaches the log. A failure to
/// write is logged and does not fail the request.
struct AuthEventMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    /// Where the audit log is written; nil when it is off.
    let auditLog: AuditWriter?
    let metrics: ServerMetrics?
    /// Whether app `$0` has a provider `$1`: only those are recorded and counted by name (a
    /// path can name anything).
    let isProvider: @Sendable (_ app: String, _ type: String) -> Bool
    /// Whether the server serves app `$0`: a request naming another app is not recorded (its
    /// path is whatever the client wrote, up to 80 KB).
    let isApp: @Sendable (_ app: String) -> Bool
    /// Failures nobody is logged in for, per client address: the most that are written a
    /// minute (a client sending bad requests or being rate-limited must not fill the disk).
    let failureBudget = AuditFailureBudget(perMinute: 120)
    let clock: ServerClock
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = AuditRoute(
            method: request.method, path: request.uri.path,
            linking: request.uri.queryParameters.get("link") == "true")
        // Refreshes, profile reads, `location`: no entry and nothing to record on the way (only
        // a function call records an event of its own), so no trail on those hot paths.
        guard route != nil || request.uri.path.hasSuffix("/functions/call") else { return try await next(request, context) }
        let trail = AuditTrail()
        do {
            let response = try await AuditTrail.$current.withValue(trail) { try await next(request, context) }
            await write(route, trail, request: request, context: context, status: Int(response.status.code), code: nil)
            return response
        } catch {
            let failure = error as? ServiceError
            await write(route, trail, request: request, context: context, status: failure?.status ?? 500, code: failure?.code.rawValue)
            throw error
        }
    }

    private func write(_ route: AuditRoute?, _ trail: AuditTrail, request: Request, context: Context, status: Int, code: String?) async {
        let state = trail.state.withLock { $0 }
        let time = clock.now
        let agent = AuditEvent.userAgent(request.headers[.userAgent])
        func entry(_ event: String, outcome: String, detail: String?) -> AuditEvent? {
            guard let app = state.appId ?? route?.appId.flatMap({ isApp($0) ? $0 : nil }) else { return nil }
            let provider = state.provider ?? route?.provider.flatMap { isProvider(app, $0) ? $0 : nil }
            return AuditEvent(
                time: time, appId: app, event: event, outcome: outcome, userId: state.userId,
                provider: provider, address: context.clientAddress, userAgent: agent, detail: detail)
        }
        var events = state.extras.compactMap { entry($0.event, outcome: $0.outcome, detail: $0.detail) }
        if let route {
            var event = state.event ?? route.event
            if state.event == nil && status == 429 { event = "rate_limited" }
            if state.event == nil && code == "InvalidPassword" { event = "password_failed" }
            let failure = state.failure ?? (status < 400 ? nil : code ?? "status \(status)")
            if let main = entry(event, outcome: failure == nil ? "success" : "failure", detail: failure) {
                events.insert(main, at: 0)
            }
        }
        guard !events.isEmpty else { return }
        if let metrics {
            for e in events { metrics.authEvent(e.event, outcome: e.outcome) }
            // A login request, whatever its event became (a wrong password, a lockout, a 429).
            if route?.event == "login", state.event != "link", state.event != "login_code", let main = events.first {
                let provider = main.provider.flatMap { state.provider == $0 || isProvider(main.appId, $0) ? $0 : nil }
                metrics.login(provider: provider, outcome: main.outcome)
            }
        }
        guard let auditLog else { return }
        if events.allSatisfy({ $0.outcome != "success" && $0.userId == nil }),
            !failureBudget.take(context.clientAddress, now: time)
        {
            return
        }
        do {
            try await auditLog.write(events)
        } catch {
            logger.error("audit log unavailable", metadata: ["error": "\(error)", "event": "\(events[0].event)"])
        }
    }
}
