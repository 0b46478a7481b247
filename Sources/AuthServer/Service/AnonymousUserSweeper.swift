import ServiceLifecycle

/// Deletes old anonymous users at start-up and then every hour, until the server shuts down
/// (see ``AuthService/sweepAnonymousUsers()``).
struct AnonymousUserSweeper: Service {
    let service: AuthService
    var interval: Duration = .seconds(3600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await service.sweepAnonymousUsers()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
