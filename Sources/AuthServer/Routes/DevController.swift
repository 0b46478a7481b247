// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird

/// The dev API (docs/protocol/server-contract.md section 3): registered only in dev mode, so it
/// does not exist otherwise, and behind ``DevRequestGuard``.
struct DevController {
    let dev: DevOperations
    let triggers: TriggerRunner
    let functions: PluginFunctions
    let outbox: DevOutbox
    let webhooks = DevWebhookSink()
    let store: any AuthStore
    let apps: [String: AppRuntime]
    let origin: PublicOrigin

    /// Adds the routes under `/api/dev/v1`, behind the guard.
    func addRoutes(to router: Router<AuthRequestContext>) {
        let group = router.group(RouterPath(Routes.dev))
            .add(middleware: DevRequestGuard(listenHost: origin.listenHost, publicURL: origin.publicURL))
        let app = group.group("apps/:app").add(middleware: AppMiddleware(apps: apps))
        app.get("outbox", use: mail)
        app.delete("outbox", use: clearMail)
        app.delete("users", use: wipeUsers)
        app.get("config", use: config)
        app.patch("config", use: patchConfig)
        app.get("triggers", use: triggerRuns)
        app.post("triggers/wait", use: waitForTriggers)
        app.post("webhooks", use: receiveWebhook)
        app.get("webhooks", use: receivedWebhooks)
        app.post("plugins/run", use: runPlugin)
        group.get("clock", use: clock)
        group.post("clock", use: advanceClock)
    }

    /// The app's mails, newest last; `?email=` and `?kind=` filter them.
    @Sendable func mail(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let query = request.uri.queryParameters
        let kind = query.get("kind")
        if let kind, !["confirm", "reset", "plugin", "notice"].contains(kind) {
            throw ServiceError(.invalidParameter, "kind must be \"confirm\", \"reset\", \"plugin\" or \"notice\"")
        }
        let messages = outbox.messages(app: app.id, email: query.get("email"), kind: kind)
        return JSONResponse.make(.array(messages.map(\.ejson)), mode: .relaxed)
    }

    @Sendable func clearMail(_ request: Request, context: AuthRequestContext) async throws -> Response {
        outbox.clear(app: try context.app.id)
        return JSONResponse.empty
    }

    @Sendable func wipeUsers(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await store.wipe(app: try context.app.id)
        return JSONResponse.empty
    }

    @Sendable func config(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try context.app.config.ejson, mode: .relaxed)
    }

    @Sendable func patchConfig(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(try await dev.patchConfig(app: app, patch: body.document), mode: .relaxed)
    }

    /// The app's recent trigger runs, newest first (`?state=queued|done|failed`, `?limit=`).
    @Sendable func triggerRuns(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let query = try TriggerRunQuery(request)
        let runs = try await store.triggerRuns(app: app.id, state: query.state, limit: query.limit)
        return JSONResponse.make(.array(runs.map(TriggerRunner.json)), mode: .relaxed)
    }

    /// Waits until none of the app's trigger runs is queued (`{"timeoutSeconds": N}`, 30 by
    /// default, at most 300); answers `{"pending": N}`, 0 when all ran.
    @Sendable func waitForTriggers(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await InputFields.read(request, context: context)
        var timeout: Int64 = 30
        if let value = body.document["timeoutSeconds"] {
            guard let n = value.integerValue, (0...300).contains(n) else {
                throw ServiceError(.invalidParameter, "parameter 'timeoutSeconds' must be an integer from 0 to 300")
            }
            timeout = n
        }
        let pending = try await triggers.waitUntilDone(app: app.id, timeout: .seconds(timeout))
        return JSONResponse.make(["pending": .int64(Int64(pending))], mode: .relaxed)
    }

    /// Keeps a request posted to the sink (any body up to the server's limit):
    /// `{method, contentType, body, receivedAt}`, the body as text.
    @Sendable func receiveWebhook(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        webhooks.keep(
            [
                "method": .string(request.method.rawValue),
                "contentType": request.headers[.contentType].map(EJSON.string) ?? .null,
                "body": .string(String(decoding: body.readableBytesView, as: UTF8.self)),
                "receivedAt": .int64(dev.clock.now),
            ], app: app.id)
        return JSONResponse.empty
    }

    /// The requests the sink received for the app, oldest first.
    @Sendable func receivedWebhooks(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(.array(webhooks.requests(app: try context.app.id)), mode: .relaxed)
    }

    @Sendable func clock(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(["now": .int64(dev.clock.now)], mode: .relaxed)
    }

    @Sendable func advanceClock(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        guard let value = body.document["advanceSeconds"] else {
            throw ServiceError(.missingParameter, "missing parameter 'advanceSeconds'")
        }
        guard let seconds = value.integerValue else {
            throw ServiceError(.invalidParameter, "parameter 'advanceSeconds' must be a non-negative integer")
        }
        return JSONResponse.make(["now": .int64(try await dev.advanceClock(seconds: seconds))], mode: .relaxed)
    }
}
