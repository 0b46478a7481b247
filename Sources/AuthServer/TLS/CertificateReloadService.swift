// SPDX-License-Identifier: Apache-2.0
import ServiceLifecycle

/// Reloads the TLS certificate and key on SIGHUP (`authsh serve`; certbot's deploy hook runs
/// `systemctl reload authsh`), until the server shuts down.
struct CertificateReloadService: Service {
    let reloader: CertificateReloader

    func run() async throws {
        let hangup = HangupSignal()
        let reloader = reloader
        hangup.start { reloader.reload() }
        try? await gracefulShutdown()
        withExtendedLifetime(hangup) {}
    }
}
