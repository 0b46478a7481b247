// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The `amr` claim of a session's tokens (RFC 8176's registered values): how its login proved
/// who the person is. Absent when none applies: anonymous, API key and custom-function logins,
/// and identity providers, whose own checks authsh cannot see. A passkey is `pop`, with `mfa`
/// when its authenticator verified the user (a PIN or a biometric: a second factor).
///
/// It also holds the rule of a second step: a second factor is a different kind of proof from
/// the first (``secondFactors(_:after:)``), so one possession factor never counts twice.
enum AuthenticationMethods {
    /// A password.
    static let password = "pwd"
    /// A one-time password: a TOTP code or a recovery code.
    static let oneTimePassword = "otp"
    /// A code texted to a phone number: a phone sign-in or a phone second factor.
    static let textMessage = "sms"
    /// Proof of possession of a key: a passkey.
    static let keyPossession = "pop"
    /// More than one factor (a passkey whose authenticator verified the user counts as two).
    static let multipleFactors = "mfa"

    /// The methods of a login with `providerType` and no second factor.
    static func firstFactor(_ providerType: String) -> [String] {
        providerType == ProviderType.userpass ? [password] : []
    }

    /// The method a second factor of `type` (a name of ``SecondFactors/usable``) proves:
    /// `otp` for a TOTP or recovery code, `sms` for a phone, `pop` for a passkey.
    static func method(ofFactor type: String) -> String {
        switch type {
        case "passkey": keyPossession
        case "phone": textMessage
        default: oneTimePassword
        }
    }

    /// The factor types of `usable` that may complete a login whose first step proved `first`:
    /// those of another kind of proof. After a passkey (`pop`) no passkey may answer, not even
    /// another one: a stolen security key must not stand for both steps; after a phone sign-in
    /// no phone factor.
    static func secondFactors(_ usable: [String], after first: [String]) -> [String] {
        usable.filter { !first.contains(method(ofFactor: $0)) }
    }

    /// The methods of a login whose first factor was `first` and second `second` (a method
    /// ``secondFactors(_:after:)`` allowed, so never one of `first`).
    static func withSecondFactor(_ first: [String], _ second: String) -> [String] {
        first.filter { $0 != multipleFactors } + [second, multipleFactors]
    }
}
