// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Where an app's plugins may send HTTP requests (`context.http`): app key `httpAllowList`, a
/// list of `scheme://host[:port]` (`http` or `https`; without a port, the scheme's own). Nothing
/// else is reached: a request to a host, port or scheme not listed is refused before any
/// connection is made, and so is a listed name that resolves to a loopback, link-local, private
/// or unspecified address, unless that exact address is what is listed (``OutboundHTTP``).
public struct HTTPAllowList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var scheme: String
        /// Lowercased; an IPv6 address without its brackets.
        public var host: String
        public var port: Int

        /// As the config writes it.
        var text: String {
            let h = host.contains(":") ? "[\(host)]" : host
            return "\(scheme)://\(h)" + (port == OutboundURL.defaultPort(scheme) ? "" : ":\(port)")
        }
    }

    public var entries: [Entry] = []

    public init() {}

    /// Whether `url` names a listed scheme, host and port.
    func allows(_ url: OutboundURL) -> Bool {
        entries.contains { $0.scheme == url.scheme && $0.host == url.host && $0.port == url.port }
    }

    init(_ values: [String], path: String) throws(ConfigError) {
        for (i, value) in values.enumerated() {
            guard let url = OutboundURL(value), url.path == "/" || url.path.isEmpty, !value.contains("?"), !value.contains("#") else {
                throw ConfigError(key: "\(path)[\(i)]", reason: "must be scheme://host[:port] (http or https), got \"\(value)\"")
            }
            entries.append(Entry(scheme: url.scheme, host: url.host, port: url.port))
        }
    }

    var ejson: EJSON { .array(entries.map { .string($0.text) }) }
}
