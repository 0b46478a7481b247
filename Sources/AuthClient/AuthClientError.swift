// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Every failure of the client: a server error (its wire `error_code`), a check the client made
/// before any request, or a transport failure.
public struct AuthClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The wire `error_code` (`InvalidPassword`, ...), or one of the client codes below.
    public var code: String
    /// The HTTP status, when a server answered.
    public var status: Int?
    /// One readable line; never a token or a password.
    public var message: String
    /// The server's `link`, when it gave one.
    public var link: String?
    /// The fields of the server's error body beyond `error`, `error_code` and `link`.
    public var details: EJSONDocument = [:]
    /// The request that failed, as `METHOD /path` (no host, no query string: never a token), when
    /// the error is an answer to one.
    public var request: String?
    /// True when the request never reached a server (its connection was refused): sending it
    /// again cannot do anything twice.
    public var neverSent = false

    public init(code: String, message: String, status: Int? = nil, link: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.link = link
    }

    /// `method` and the path of `url` as ``request`` names them.
    public static func requestLine(_ method: String, _ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...].drop { $0 != "/" } }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        return method + " " + (rest.isEmpty ? "/" : rest)
    }

    /// A server's error body.
    public init(_ error: ServiceError) {
        self.init(code: error.code.rawValue, message: error.message, status: error.status, link: error.link)
        details = error.details
    }

    /// `AccountExistsWithDifferentCredential`: the verified email another account holds.
    public var email: String? { details["email"]?.stringValue }
    /// `AccountExistsWithDifferentCredential`: the providers that account signs in with.
    public var providers: [String] { details["providers"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    /// `AccountExistsWithDifferentCredential`: the identity the failed login proved. Sign in
    /// with one of ``providers``, then `linkIdentity(credentials:)` with it (once, within 10 minutes).
    public var pendingCredential: Credentials? {
        guard let provider = details["provider"]?.stringValue, let token = details["pendingCredential"]?.stringValue else { return nil }
        return .pending(provider: provider, credential: token)
    }

    /// `MFARequired`: the token that completes the login with a code (``Credentials/mfa(token:code:)``).
    public var mfaToken: String? { details["mfaToken"]?.stringValue }
    /// `MFARequired` with `passkey` among ``factors``: the options of the passkey step.
    public var passkeyOptions: EJSON? { details["passkeyOptions"] }
    /// `MFARequired`: what the login may be completed with (`totp`, `passkey`, `recovery_code`).
    public var factors: [String] { details["factors"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// The Firebase SDKs' name of the error (`auth/wrong-password`, ...), for an app that
    /// speaks Firebase Auth; nil otherwise.
    public var firebaseCode: String? { details["firebaseCode"]?.stringValue }

    public var description: String { "\(code): \(message)" }

    // Client-side codes (realm-core's names).
    public static let userNotFound = "ClientUserNotFound"
    public static let userNotLoggedIn = "ClientUserNotLoggedIn"
    public static let userAlreadyNamed = "ClientUserAlreadyNamed"
    /// The user store could not be read or written (the message names the file).
    public static let storeFailed = "ClientStoreFailed"
    // Transport codes.
    /// The server could not be reached (refused, unreachable, DNS).
    public static let connectionFailed = "ConnectionFailed"
    /// No answer within the request timeout.
    public static let timedOut = "RequestTimedOut"
    /// An answer that is not what the protocol says (not JSON, too large, missing fields).
    public static let malformedResponse = "MalformedResponse"
    /// A reauthentication whose credentials belong to another user (nothing changed).
    public static let userMismatch = "UserMismatch"
    /// An operation the app's protocol has not (an API key or a function over Firebase's API):
    /// the message names the protocol.
    public static let notInProtocol = "NotInProtocol"
    // Sign-in codes.
    /// The sign-in was cancelled (the task, or Ctrl-C in the REPL).
    public static let cancelled = "Cancelled"
    /// The person did not finish the sign-in within its timeout.
    public static let signInTimedOut = "SignInTimedOut"
    /// The identity provider or the person refused the sign-in (the message says which).
    public static let signInFailed = "SignInFailed"
}
