import AuthProtocol
import Hummingbird

/// `GET /healthz`: the process answers. `GET /readyz`: it can serve, its database answering
/// within ``readinessTimeout`` (migrations ran before the server listened). For load balancers
/// and orchestrators; neither says more than that.
extension AuthService {
    /// How long `/readyz` waits for the database.
    static let readinessTimeout = Duration.seconds(2)

    func addHealthRoutes(to router: Router<AuthRequestContext>) {
        router.get("healthz") { _, _ in JSONResponse.make(["status": "ok"]) }
        router.get("readyz") { _, _ in
            do {
                let store = self.store
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await store.ping() }
                    group.addTask {
                        try await Task.sleep(for: Self.readinessTimeout)
                        throw StoreError.unavailable("ping: no answer in time")
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
                return JSONResponse.make(["status": "ready"])
            } catch {
                self.logger.error("not ready: the database does not answer", metadata: ["error": "\(error)"])
                return JSONResponse.make(["status": "unavailable", "reason": "the database does not answer"], status: .serviceUnavailable)
            }
        }
    }
}
