// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An app's second factors: app key `mfa`.
///
/// ```json
/// "mfa": { "totp": { "enabled": true, "issuer": "Acme" } }
/// ```
///
/// `totp.enabled` lets users enrol a TOTP factor (an authenticator app); without the key it is
/// off, except in dev mode. `issuer` is the name the app shows the entry under (default: the
/// app id). Turning it off stops new enrolments only: a user who enrolled still needs their code
/// to log in, until they or an administrator remove the factor. A careless config edit must not
/// take a second factor away.
public struct MFAConfiguration: Sendable, Equatable {
    /// TOTP enrolment is offered; nil: the default (on in dev mode only).
    public var totpEnabled: Bool?
    /// The label of the entry in an authenticator app; nil: the app id.
    public var totpIssuer: String?

    public init() {}

    /// Whether TOTP enrolment is offered on a server in dev mode or not.
    public func offersTOTP(dev: Bool) -> Bool { totpEnabled ?? dev }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        self.init()
        if let v = r.value("totp") {
            var t = try ConfigReader(v, path: r.keyPath("totp"))
            if let v = t.value("enabled"), v != .null {
                guard case .bool(let b) = v else { throw t.mismatch("enabled", "true, false or null", v) }
                totpEnabled = b
            } else {
                totpEnabled = true  // `"totp": {}` turns it on
            }
            totpIssuer = try t.string("issuer")
            if let issuer = totpIssuer, issuer.isEmpty || issuer.contains(":") {
                throw ConfigError(key: t.keyPath("issuer"), reason: "must be a non-empty name without ':'")
            }
            try t.finish()
        }
        try r.finish()
    }

    var ejson: EJSON {
        ["totp": ["enabled": totpEnabled.map(EJSON.bool) ?? .null, "issuer": totpIssuer.map(EJSON.string) ?? .null]]
    }
}
