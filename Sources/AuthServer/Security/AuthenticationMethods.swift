import AuthProtocol

/// The `amr` claim of a session's tokens (RFC 8176's registered values): how its login proved
/// who the person is. Absent when none applies: anonymous, API key and custom-function logins,
/// and identity providers, whose own checks authsh cannot see. A passkey is `pop`, with `mfa`
/// when its authenticator verified the user (a PIN or a biometric: a second factor).
enum AuthenticationMethods {
    /// A password.
    static let password = "pwd"
    /// A one-time password: a TOTP code or a recovery code.
    static let oneTimePassword = "otp"
    /// Proof of possession of a key: a passkey.
    static let keyPossession = "pop"
    /// More than one factor (a passkey whose authenticator verified the user counts as two).
    static let multipleFactors = "mfa"

    /// The methods of a login with `providerType` and no second factor.
    static func firstFactor(_ providerType: String) -> [String] {
        providerType == ProviderType.userpass ? [password] : []
    }

    /// The methods of a login whose first factor was `first` and second `second`.
    static func withSecondFactor(_ first: [String], _ second: String) -> [String] {
        var methods = first.filter { $0 != multipleFactors }
        if !methods.contains(second) { methods.append(second) }
        return methods + [multipleFactors]
    }
}
