// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import Hummingbird
import Logging
import ServiceLifecycle

/// The metrics listener (`--metrics-port`): `GET /metrics` in Prometheus' text format, and
/// nothing else, on an address of its own so that it can stay off the public one.
enum MetricsListener {
    /// The server answering `/metrics` on `host`:`port`, run beside the main one.
    static func make(
        metrics: ServerMetrics, store: any MailQueueStore, host: String, port: Int, logger: Logger,
        onListening: @escaping @Sendable (String, Int) async -> Void
    ) -> any Service {
        let router = Router()
        router.get("metrics") { _, _ in
            let body = await metrics.render(store: store)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: .init(bytes: body)))
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.ipAddress ?? host, channel.localAddress?.port ?? port)
            },
            logger: logger
        )
    }
}
