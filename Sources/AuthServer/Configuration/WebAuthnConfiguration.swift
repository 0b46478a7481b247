// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An app's passkeys (WebAuthn): app key `webauthn`.
///
/// ```json
/// "webauthn": { "rpId": "example.com", "rpName": "Acme", "origins": ["https://example.com"],
///               "userVerification": "preferred" }
/// ```
///
/// `rpId` is the relying party's id, the domain passkeys are bound to; `origins` the pages that
/// may use them, each of `rpId` or a subdomain (`https://login.example.com`), in their browser
/// form. `userVerification` is what a login asks of the authenticator: `required` (a PIN or a
/// biometric, always), `preferred` (the default) or `discouraged`. A login whose authenticator
/// verified the user counts as two factors. Without the key an app has no passkeys (their routes
/// answer 404), except in dev mode, where they are on for `rpId` `localhost` and the pages of
/// `http://localhost` on any port.
public struct WebAuthnConfiguration: Sendable, Equatable {
    public enum UserVerification: String, Sendable {
        case required, preferred, discouraged
    }

    public var rpId: String
    /// The name authenticators show; nil: the app id.
    public var rpName: String?
    /// The origins allowed, canonical (``RequestOrigins``).
    public var origins: [String]
    /// Any `http://localhost` port (dev mode's default).
    public var anyLocalhostPort = false
    public var userVerification: UserVerification = .preferred

    public init(rpId: String, rpName: String? = nil, origins: [String], anyLocalhostPort: Bool = false) {
        self.rpId = rpId
        self.rpName = rpName
        self.origins = origins
        self.anyLocalhostPort = anyLocalhostPort
    }

    /// Dev mode's: `localhost`, any of its ports.
    public static let dev = WebAuthnConfiguration(rpId: "localhost", origins: [], anyLocalhostPort: true)

    /// Whether a page of `origin` (clientDataJSON's) may use the app's passkeys.
    public func allows(origin: String) -> Bool {
        if origins.contains(origin) { return true }
        guard anyLocalhostPort else { return false }
        if origin == "http://localhost" { return true }
        guard origin.hasPrefix("http://localhost:") else { return false }
        let port = origin.dropFirst("http://localhost:".count)
        return !port.isEmpty && port.count <= 5 && port.allSatisfy { $0.isASCII && $0.isNumber }
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let rpId = try r.string("rpId"), !rpId.isEmpty else {
            throw ConfigError(key: r.keyPath("rpId"), reason: "missing: the domain passkeys are bound to (example.com)")
        }
        guard rpId == rpId.lowercased(), rpId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }),
            !rpId.hasPrefix("."), !rpId.hasSuffix(".")
        else {
            throw ConfigError(key: r.keyPath("rpId"), reason: "must be a lowercase domain name, no scheme or port (example.com)")
        }
        guard let list = try r.strings("origins"), !list.isEmpty else {
            throw ConfigError(key: r.keyPath("origins"), reason: "missing: the pages that use passkeys (https://\(rpId))")
        }
        let origins = try RequestOrigins(list, path: r.keyPath("origins"))
        guard !origins.any else { throw ConfigError(key: r.keyPath("origins"), reason: "\"*\" is not allowed: name each origin") }
        for (i, origin) in origins.origins.enumerated() {
            let host = origin.split(separator: "://", maxSplits: 1).last.map { $0.split(separator: ":").first.map(String.init) ?? "" } ?? ""
            guard host == rpId || host.hasSuffix("." + rpId) else {
                throw ConfigError(key: r.keyPath("origins[\(i)]"), reason: "\(origin) is not of \(rpId) or a subdomain of it")
            }
            guard origin.hasPrefix("https://") || host == "localhost" else {
                throw ConfigError(key: r.keyPath("origins[\(i)]"), reason: "browsers use passkeys on https:// pages only (and http://localhost)")
            }
        }
        self.init(rpId: rpId, rpName: try r.string("rpName"), origins: origins.origins)
        if let v = try r.string("userVerification") {
            guard let uv = UserVerification(rawValue: v) else {
                throw ConfigError(key: r.keyPath("userVerification"), reason: "must be \"required\", \"preferred\" or \"discouraged\"")
            }
            userVerification = uv
        }
        try r.finish()
    }

    var ejson: EJSON {
        [
            "rpId": .string(rpId), "rpName": rpName.map(EJSON.string) ?? .null, "origins": .array(origins.map(EJSON.string)),
            "userVerification": .string(userVerification.rawValue),
        ]
    }
}
