import AuthProtocol
import Hummingbird

/// The dev API (docs/protocol/server-contract.md section 3): registered only in dev mode, so it
/// does not exist otherwise, and behind ``DevRequestGuard``.
struct DevController {
    let dev: DevOperations
    let outbox: DevOutbox
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
        let body = try await RequestBody.read(request, context: context)
        return JSONResponse.make(try await dev.patchConfig(app: app, patch: body.document), mode: .relaxed)
    }

    @Sendable func clock(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(["now": .int64(dev.clock.now)], mode: .relaxed)
    }

    @Sendable func advanceClock(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await RequestBody.read(request, context: context)
        guard let value = body.document["advanceSeconds"] else {
            throw ServiceError(.missingParameter, "missing parameter 'advanceSeconds'")
        }
        guard let seconds = value.integerValue else {
            throw ServiceError(.invalidParameter, "parameter 'advanceSeconds' must be a non-negative integer")
        }
        return JSONResponse.make(["now": .int64(try await dev.advanceClock(seconds: seconds))], mode: .relaxed)
    }
}
