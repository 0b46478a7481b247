import AuthProtocol
import Hummingbird

/// The dev API (docs/protocol/server-contract.md section 3): registered only in dev mode, so it
/// does not exist otherwise.
extension AuthService {
    func addDevRoutes(to router: Router<AuthRequestContext>, outbox: DevOutbox) {
        let dev = router.group(RouterPath(Routes.dev))
            .add(middleware: DevRequestGuard(listenHost: listenHost, publicURL: publicURL))
        let app = dev.group("apps/:app").add(middleware: AppMiddleware(apps: apps))
        app.get("outbox") { request, context in
            let app = try context.app
            let query = request.uri.queryParameters
            let kind = query.get("kind")
            if let kind, !["confirm", "reset", "plugin", "notice"].contains(kind) {
                throw ServiceError(.invalidParameter, "kind must be \"confirm\", \"reset\", \"plugin\" or \"notice\"")
            }
            let messages = outbox.messages(app: app.id, email: query.get("email"), kind: kind)
            return JSONResponse.make(.array(messages.map(\.ejson)), mode: .relaxed)
        }
        app.delete("outbox") { _, context in
            outbox.clear(app: try context.app.id)
            return JSONResponse.empty
        }
        app.delete("users") { _, context in
            let app = try context.app
            try await self.store.wipe(app: app.id)
            return JSONResponse.empty
        }
        app.get("config") { _, context in
            JSONResponse.make(try context.app.config.ejson, mode: .relaxed)
        }
        app.patch("config") { request, context in
            let app = try context.app
            let body = try await RequestBody.read(request, context: context)
            let merged = Self.mergePatch(app.config.ejson, .document(body.document))
            do {
                let config = try AppConfiguration(ejson: merged, path: "")
                try Self.checkFunctionNames(config, exports: self.plugins.exports)
                try await app.update(config)
            } catch {
                throw ServiceError(.invalidParameter, "\(error)")
            }
            return JSONResponse.make(app.config.ejson, mode: .relaxed)
        }
        dev.get("clock") { _, _ in
            JSONResponse.make(["now": .int64(self.clock.now)], mode: .relaxed)
        }
        dev.post("clock") { request, context in
            let body = try await RequestBody.read(request, context: context)
            guard let value = body.document["advanceSeconds"] else {
                throw ServiceError(.missingParameter, "missing parameter 'advanceSeconds'")
            }
            guard let seconds = value.integerValue, seconds >= 0 else {
                throw ServiceError(.invalidParameter, "parameter 'advanceSeconds' must be a non-negative integer")
            }
            guard self.clock.advance(seconds: seconds) else {
                throw ServiceError(
                    .invalidParameter,
                    "parameter 'advanceSeconds' would move the clock past the year 9999 (\(ServerClock.latest) Unix seconds)")
            }
            await self.sweepAnonymousUsers()
            return JSONResponse.make(["now": .int64(self.clock.now)], mode: .relaxed)
        }
    }

    /// RFC 7396 JSON merge patch: documents merge key by key, null removes, anything else replaces.
    static func mergePatch(_ target: EJSON, _ patch: EJSON) -> EJSON {
        guard case .document(let p) = patch else { return patch }
        var result = target.documentValue ?? [:]
        for (key, value) in p {
            if value == .null { result[key] = nil } else { result[key] = mergePatch(result[key] ?? .null, value) }
        }
        return .document(result)
    }
}
