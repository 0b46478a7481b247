import AuthProtocol

/// The `amr` claim of a session's tokens (RFC 8176's registered values): how its login proved
/// who the person is. Absent when none applies: anonymous, API key and custom-function logins,
/// and identity providers, whose own checks authsh cannot see.
enum AuthenticationMethods {
    /// A password.
    static let password = "pwd"
    /// A one-time password: a TOTP code or a recovery code.
    static let oneTimePassword = "otp"
    /// More than one factor.
    static let multipleFactors = "mfa"

    /// The methods of a login with `providerType` and no second factor.
    static func firstFactor(_ providerType: String) -> [String] {
        providerType == ProviderType.userpass ? [password] : []
    }

    /// The methods of a login with `providerType` completed by a second factor.
    static func withSecondFactor(_ providerType: String) -> [String] {
        firstFactor(providerType) + [oneTimePassword, multipleFactors]
    }
}
