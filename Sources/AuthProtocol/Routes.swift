// SPDX-License-Identifier: Apache-2.0
/// The paths of the App Services client API (docs/protocol/wire-protocol.md section 2).
public enum Routes {
    /// `/api/client/v2.0`: profile, session, delete and API keys live here (the token names the app).
    public static let base = "/api/client/v2.0"
    /// `/api/dev/v1`: the dev API of a server in dev mode.
    public static let dev = "/api/dev/v1"

    /// `{base}/app/{id}`: login, register, confirm, reset and functions live here.
    public static func app(_ id: String) -> String { "\(base)/app/\(id)" }
    /// `{app}/location`.
    public static func location(_ app: String) -> String { "\(self.app(app))/location" }
    /// `{app}/auth/providers/{provider}/login`.
    public static func login(_ app: String, provider: String) -> String {
        "\(self.app(app))/auth/providers/\(provider)/login"
    }
    /// `{app}/auth/providers/local-userpass/{action}`, for register, confirm, confirm/send and the rest.
    public static func userpass(_ app: String, _ action: String) -> String {
        "\(self.app(app))/auth/providers/local-userpass/\(action)"
    }
    /// `{app}/functions/call`.
    public static func functionsCall(_ app: String) -> String { "\(self.app(app))/functions/call" }
    /// `{base}/auth/profile`.
    public static let profile = "\(base)/auth/profile"
    /// `{base}/auth/session`: POST refreshes, DELETE logs out.
    public static let session = "\(base)/auth/session"
    /// `{base}/auth/delete`.
    public static let deleteUser = "\(base)/auth/delete"
    /// `{base}/auth/api_keys`.
    public static let apiKeys = "\(base)/auth/api_keys"
    /// `POST`: removes one identity of the caller.
    public static let unlink = "\(base)/auth/unlink"
    /// `GET`: the caller's sessions; `DELETE`: all but the current one.
    public static let sessions = "\(base)/auth/sessions"
    /// `DELETE`: ends one session of the caller.
    public static func session(_ id: String) -> String { "\(sessions)/\(id)" }
    /// `GET ?email=`: the providers the holder of an email signs in with.
    public static func signInMethods(_ app: String) -> String { "\(self.app(app))/auth/methods" }
    /// `{base}/auth/mfa`: the caller's second factors (`/totp`, `/totp/confirm`, `/recovery_codes`).
    public static let mfa = "\(base)/auth/mfa"
    /// `{base}/auth/passkeys`: the caller's passkeys (`/options`, `/{id}`).
    public static let passkeys = "\(base)/auth/passkeys"
    /// `{app}/auth/providers/passkey/options`: a passkey login's options.
    public static func passkeyOptions(_ app: String) -> String { "\(self.app(app))/auth/providers/passkey/options" }
    /// `{base}/auth/api_keys/{id}`.
    public static func apiKey(_ id: String) -> String { "\(apiKeys)/\(id)" }
}

/// The wire names of the authentication providers (docs/protocol/wire-protocol.md section 3).
public enum ProviderType {
    public static let anonymous = "anon-user"
    public static let userpass = "local-userpass"
    public static let apiKey = "api-key"
    public static let customToken = "custom-token"
    public static let customFunction = "custom-function"
    /// A phone number proven by a texted code (the Firebase API's phone sign-in).
    public static let phone = "phone"
    public static let google = "oauth2-google"
    public static let facebook = "oauth2-facebook"
    public static let apple = "oauth2-apple"
}
