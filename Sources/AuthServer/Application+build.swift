import AuthProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Builds the server: the command (`authsh serve`) and the tests use this one function.
///
/// Opens (and migrates) the database, loads or creates the apps' signing keys, and registers
/// the client API (and the dev API in dev mode). Throws ``ConfigError`` for a configuration
/// that cannot be served, before anything listens.
/// - Parameters:
///   - configuration: where to listen, where data lives, which apps.
///   - onListening: called with the bound address once the server accepts connections.
public func buildApplication(
    _ configuration: ServerConfiguration,
    onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
) async throws -> some ApplicationProtocol {
    let store = try openStore(configuration)
    let service = try await AuthService(configuration: configuration, store: store)
    let router = Router(context: AuthRequestContext.self)
    router.add(middleware: ErrorMiddleware(logger: configuration.logger))
    service.addClientRoutes(to: router)
    if let outbox = service.outbox {
        service.addDevRoutes(to: router, outbox: outbox)
    }
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        onServerRunning: { channel in
            let address = channel.localAddress
            await onListening(address?.ipAddress ?? configuration.host, address?.port ?? configuration.port)
        },
        logger: configuration.logger
    )
}

/// Opens the configured database; a data directory is created 0700 if it is missing.
func openStore(_ configuration: ServerConfiguration) throws -> any AuthStore {
    switch configuration.database {
    case .memory:
        return try SQLiteStore(path: nil)
    case .directory(let dir):
        if !FileManager.default.fileExists(atPath: dir) {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        return try SQLiteStore(path: dir + "/authsh.sqlite")
    }
}
