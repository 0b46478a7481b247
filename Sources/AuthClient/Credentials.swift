// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// How a user proves who they are; each kind is sent as docs/protocol/wire-protocol.md section 3 says.
public struct Credentials: Sendable, Equatable {
    /// The provider's wire name (`anon-user`, `local-userpass`, ...).
    public let provider: String
    /// The login body, `provider` included except for custom-function (the payload itself).
    public let body: EJSONDocument
    /// Anonymous only: return the logged-in anonymous user if there is one, without a request.
    public let reuse: Bool
    /// Passkey logins: the authenticator that answers the server's options at login time.
    public let authenticator: SoftwareAuthenticator?

    /// Credentials for any provider, with the login body as docs/protocol/wire-protocol.md gives it (for
    /// providers this type has no constructor for, such as `oauth2-*`).
    public init(provider: String, body: EJSONDocument, reuse: Bool = false) {
        self.provider = provider
        self.body = body
        self.reuse = reuse
        authenticator = nil
    }

    private init(passkey authenticator: SoftwareAuthenticator) {
        provider = "passkey"
        body = ["provider": "passkey"]
        reuse = false
        self.authenticator = authenticator
    }

    public static func == (a: Credentials, b: Credentials) -> Bool {
        a.provider == b.provider && a.body == b.body && a.reuse == b.reuse && a.authenticator === b.authenticator
    }

    /// A passkey login with no user name: the server's options are asked for at login time,
    /// and `authenticator` answers them with its newest credential for the server's RP id.
    public static func passkey(_ authenticator: SoftwareAuthenticator) -> Credentials { Credentials(passkey: authenticator) }

    /// The provider name of ``emailLink(email:link:)``'s credentials (Firebase's `emailLink`
    /// sign-in method).
    public static let emailLinkProvider = "email-link"

    /// A sign-in link of a mail ``EmailPasswordAuth/sendSignInLink(email:continueURL:)`` sent
    /// (or the `oobCode` it carries), with the email it went to: Firebase's
    /// `signInWithEmailLink`. Firebase Auth's API only.
    public static func emailLink(email: String, link: String) -> Credentials {
        Credentials(
            provider: emailLinkProvider,
            body: ["provider": .string(emailLinkProvider), "email": .string(email), "oobCode": .string(oobCode(in: link))])
    }

    /// The `oobCode` parameter of a link, or `text` itself when it carries none.
    static func oobCode(in text: String) -> String {
        guard let query = text.firstIndex(of: "?") else { return text }
        let fields = FormEncoding.decode(String(text[text.index(after: query)...].prefix { $0 != "#" })) ?? []
        return FormEncoding.value("oobCode", in: fields) ?? text
    }

    /// The second step of a login that answered `MFARequired` offering a passkey (its
    /// `passkeyOptions`): `authenticator`'s assertion over them.
    public static func mfa(_ error: AuthClientError, authenticator: SoftwareAuthenticator) throws(AuthClientError) -> Credentials {
        guard let token = error.mfaToken, let options = error.passkeyOptions else {
            throw AuthClientError(code: error.code, message: "this error offers no passkey second step (no mfaToken or passkeyOptions)")
        }
        let assertion = try SoftwareAuthenticator.answer { try authenticator.get(options) }
        return Credentials(provider: "mfa", body: ["provider": "mfa", "mfaToken": .string(token), "credential": assertion])
    }

    /// A new anonymous user, or (reuse) the logged-in anonymous user if there is one.
    public static func anonymous(reuse: Bool = true) -> Credentials {
        Credentials(provider: ProviderType.anonymous, body: ["provider": .string(ProviderType.anonymous)], reuse: reuse)
    }

    public static func emailPassword(email: String, password: String) -> Credentials {
        Credentials(
            provider: ProviderType.userpass,
            body: [
                "provider": .string(ProviderType.userpass), "username": .string(email), "password": .string(password),
            ])
    }

    /// A user API key.
    public static func userAPIKey(_ key: String) -> Credentials {
        Credentials(provider: ProviderType.apiKey, body: ["provider": .string(ProviderType.apiKey), "key": .string(key)])
    }

    /// A server API key (the same wire form as a user key).
    public static func serverAPIKey(_ key: String) -> Credentials { userAPIKey(key) }

    /// A pending credential of the account-exists conflict (``AuthClientError/pendingCredential``):
    /// only linked, by the user that holds its email.
    public static func pending(provider: String, credential: String) -> Credentials {
        Credentials(provider: provider, body: ["provider": .string(provider), "pendingCredential": .string(credential)])
    }

    /// The second step of a login that answered `MFARequired`: its `mfaToken`
    /// (``AuthClientError/mfaToken``) and a TOTP code or a recovery code.
    public static func mfa(token: String, code: String) -> Credentials {
        Credentials(provider: "mfa", body: ["provider": "mfa", "mfaToken": .string(token), "code": .string(code)])
    }

    /// A JWT of another service (custom-token).
    public static func jwt(_ token: String) -> Credentials {
        Credentials(provider: ProviderType.customToken, body: ["provider": .string(ProviderType.customToken), "token": .string(token)])
    }

    /// A custom-function payload: the document itself is the body, with no `provider` key.
    public static func function(payload: EJSONDocument) -> Credentials {
        Credentials(provider: ProviderType.customFunction, body: payload)
    }

    /// Google, by server auth code.
    public static func google(authCode: String) -> Credentials {
        Credentials(provider: ProviderType.google, body: ["provider": .string(ProviderType.google), "authCode": .string(authCode)])
    }

    /// Google, by ID token.
    public static func google(idToken: String) -> Credentials {
        Credentials(provider: ProviderType.google, body: ["provider": .string(ProviderType.google), "id_token": .string(idToken)])
    }

    /// Google, by ID token (Realm Swift's name).
    public static func googleId(token: String) -> Credentials { google(idToken: token) }

    /// Google, by server auth code (Realm Swift's name).
    public static func google(serverAuthCode: String) -> Credentials { google(authCode: serverAuthCode) }

    /// Any `oauth2-*` provider (`github`, `oauth2-github`, `acme`...), by ID token.
    public static func oauth(provider: String, idToken: String) -> Credentials {
        oauth(provider, ["id_token": .string(idToken)])
    }

    /// Any `oauth2-*` provider, by authorization code; `redirectURI` and `codeVerifier` when the
    /// code was obtained by a public client with PKCE.
    public static func oauth(provider: String, authCode: String, redirectURI: String? = nil, codeVerifier: String? = nil) -> Credentials {
        var body: EJSONDocument = ["authCode": .string(authCode)]
        if let redirectURI { body["redirectUri"] = .string(redirectURI) }
        if let codeVerifier { body["codeVerifier"] = .string(codeVerifier) }
        return oauth(provider, body)
    }

    /// Any `oauth2-*` provider, by the provider's access token.
    public static func oauth(provider: String, accessToken: String) -> Credentials {
        oauth(provider, ["accessToken": .string(accessToken)])
    }

    /// The login code of a loopback sign-in (``App/signIn(provider:scopes:customParameters:presenter:timeout:)``).
    static func loginCode(provider: String, code: String, verifier: String) -> Credentials {
        oauth(provider, ["loginCode": .string(code), "codeVerifier": .string(verifier)])
    }

    /// A device code the person approved (the device flow).
    static func deviceCode(provider: String, code: String) -> Credentials {
        oauth(provider, ["deviceCode": .string(code)])
    }

    /// `oauth2-NAME` for `NAME` or `oauth2-NAME`.
    public static func oauthProviderType(_ name: String) -> String {
        name.hasPrefix("oauth2-") ? name : "oauth2-" + name
    }

    private static func oauth(_ provider: String, _ body: EJSONDocument) -> Credentials {
        let type = oauthProviderType(provider)
        var b = body
        b["provider"] = .string(type)
        return Credentials(provider: type, body: b)
    }

    public static func apple(idToken: String) -> Credentials {
        Credentials(provider: ProviderType.apple, body: ["provider": .string(ProviderType.apple), "id_token": .string(idToken)])
    }

    public static func facebook(accessToken: String) -> Credentials {
        Credentials(provider: ProviderType.facebook, body: ["provider": .string(ProviderType.facebook), "accessToken": .string(accessToken)])
    }
}
