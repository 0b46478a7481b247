// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// Where this server can be reached, for endpoints given as a path on this server (the dev
/// identity provider's): the address it listens on, known once it listens.
final class ServerOrigin: Sendable {
    private let origin = Mutex<String?>(nil)

    /// Records the bound address (`0.0.0.0` and `::` are reached through loopback).
    func listening(scheme: String = "http", host: String, port: Int) {
        let h = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "[::1]" : host.contains(":") ? "[\(host)]" : host
        origin.withLock { $0 = "\(scheme)://\(h):\(port)" }
    }

    /// `http://HOST:PORT` (`https` with TLS), once the server listens.
    var value: String? { origin.withLock { $0 } }

    /// `url` itself, or this server's origin followed by `url` when it is a path.
    func resolve(_ url: String) throws(ServiceError) -> String {
        guard url.hasPrefix("/") else { return url }
        guard let value else {
            throw ServiceError(.identityProviderUnavailable, "this server's own address is not known yet")
        }
        return value + url
    }
}
