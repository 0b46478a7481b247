// SPDX-License-Identifier: Apache-2.0
/// A configuration that cannot be served: which file, which key, what is wrong.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// The file, or nil for configuration given in code or through the dev API.
    public var file: String?
    /// The key path, for instance `apps[0].providers.local-userpass.autoConfirm`.
    public var key: String
    /// What is wrong with it.
    public var reason: String

    public init(file: String? = nil, key: String, reason: String) {
        self.file = file
        self.key = key
        self.reason = reason
    }

    public var description: String {
        let place = key.isEmpty ? "" : "\(key): "
        if let file { return "config \(file): \(place)\(reason)" }
        return "config: \(place)\(reason)"
    }
}
