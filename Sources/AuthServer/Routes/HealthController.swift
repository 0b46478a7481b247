// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird
import Logging
import Synchronization

/// `GET /healthz`: the process answers. `GET /readyz`: it can serve, its database answering
/// within ``readinessTimeout`` (migrations ran before the server listened). For load balancers
/// and orchestrators; neither says more than that.
struct HealthController {
    let store: any AuthStore
    let logger: Logger

    /// How long `/readyz` waits for the database.
    static let readinessTimeout = Duration.seconds(2)

    func addRoutes(to router: Router<AuthRequestContext>) {
        router.get("healthz") { _, _ in JSONResponse.make(["status": "ok"]) }
        // The HTTP contract (docs/openapi.json), as this build answers it.
        router.get("api/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        router.get("readyz") { _, _ in
            if await databaseAnswers() { return JSONResponse.make(["status": "ready"]) }
            return JSONResponse.make(["status": "unavailable", "reason": "the database does not answer"], status: .serviceUnavailable)
        }
    }

    /// Whether a ping comes back within ``readinessTimeout``. The ping runs in its own task,
    /// which is left to finish: a database that hangs must not hang the probe.
    private func databaseAnswers() async -> Bool {
        let answer = ReadinessAnswer()
        let store = store, logger = logger
        return await withCheckedContinuation { continuation in
            answer.wait(continuation)
            Task {
                do {
                    try await store.ping()
                    answer.settle(true)
                } catch {
                    logger.error("not ready: the database does not answer", metadata: ["error": "\(error)"])
                    answer.settle(false)
                }
            }
            Task {
                try? await Task.sleep(for: Self.readinessTimeout)
                answer.settle(false)
            }
        }
    }
}

/// The first of a ping's answer and the timeout.
private final class ReadinessAnswer: Sendable {
    private let waiter = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func wait(_ continuation: CheckedContinuation<Bool, Never>) { waiter.withLock { $0 = continuation } }

    func settle(_ ready: Bool) { waiter.withLock { $0.take() }?.resume(returning: ready) }
}
