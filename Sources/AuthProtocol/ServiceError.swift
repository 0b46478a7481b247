// SPDX-License-Identifier: Apache-2.0
/// A machine-readable error name of the App Services API (`error_code` in an error body).
public struct ServiceErrorCode: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The wire name, for instance `InvalidPassword`.
    public let rawValue: String
    /// The HTTP status the server answers with by default.
    public let status: Int

    public init(rawValue: String) {
        self.rawValue = rawValue
        self.status = ServiceErrorCode.known[rawValue] ?? 400
    }

    private init(_ name: String, _ status: Int) {
        self.rawValue = name
        self.status = status
    }

    public var description: String { rawValue }

    public static let invalidSession = ServiceErrorCode("InvalidSession", 401)
    public static let invalidPassword = ServiceErrorCode("InvalidPassword", 401)
    public static let accountNameInUse = ServiceErrorCode("AccountNameInUse", 409)
    public static let userNotFound = ServiceErrorCode("UserNotFound", 404)
    public static let userAlreadyConfirmed = ServiceErrorCode("UserAlreadyConfirmed", 400)
    public static let userDisabled = ServiceErrorCode("UserDisabled", 401)
    public static let authError = ServiceErrorCode("AuthError", 401)
    public static let badRequest = ServiceErrorCode("BadRequest", 400)
    public static let invalidParameter = ServiceErrorCode("InvalidParameter", 400)
    public static let missingParameter = ServiceErrorCode("MissingParameter", 400)
    public static let missingAuthReq = ServiceErrorCode("MissingAuthReq", 401)
    public static let apiKeyNotFound = ServiceErrorCode("APIKeyNotFound", 404)
    public static let apiKeyAlreadyExists = ServiceErrorCode("APIKeyAlreadyExists", 409)
    public static let authProviderNotFound = ServiceErrorCode("AuthProviderNotFound", 404)
    public static let functionNotFound = ServiceErrorCode("FunctionNotFound", 404)
    /// A `functions/call` naming a service (realm-web's `mongoClient`): authsh has none.
    public static let serviceNotFound = ServiceErrorCode("ServiceNotFound", 404)
    public static let functionExecutionError = ServiceErrorCode("FunctionExecutionError", 400)
    public static let executionTimeLimitExceeded = ServiceErrorCode("ExecutionTimeLimitExceeded", 400)
    public static let internalServerError = ServiceErrorCode("InternalServerError", 500)
    public static let maintenanceInProgress = ServiceErrorCode("MaintenanceInProgress", 503)
    /// authsh: the server's database cannot be reached now; the answer carries `Retry-After`.
    public static let serviceUnavailable = ServiceErrorCode("ServiceUnavailable", 503)
    /// authsh: the app id in the path names no app of this server.
    public static let appNotFound = ServiceErrorCode("AppNotFound", 404)
    /// authsh: no route for this method and path.
    public static let notFound = ServiceErrorCode("NotFound", 404)
    /// authsh: the body is larger than the server accepts.
    public static let payloadTooLarge = ServiceErrorCode("PayloadTooLarge", 413)
    /// authsh: a method the route does not answer.
    public static let methodNotAllowed = ServiceErrorCode("MethodNotAllowed", 405)
    /// authsh: a body that is not JSON where JSON is required (the dev API).
    public static let unsupportedMediaType = ServiceErrorCode("UnsupportedMediaType", 415)
    /// authsh: a request the server refuses to serve from where it came (the dev API and other origins).
    public static let forbidden = ServiceErrorCode("Forbidden", 403)
    /// authsh: over a rate limit; the answer carries `Retry-After`.
    public static let tooManyRequests = ServiceErrorCode("TooManyRequests", 429)
    /// authsh: an identity provider could not be reached, or answered what is not its protocol.
    public static let identityProviderUnavailable = ServiceErrorCode("IdentityProviderUnavailable", 502)
    /// authsh (RFC 8628): the person has not approved the device code yet; poll again.
    public static let authorizationPending = ServiceErrorCode("AuthorizationPending", 400)
    /// authsh (RFC 8628): polling too fast; wait 5 s more between polls.
    public static let slowDown = ServiceErrorCode("SlowDown", 400)
    /// authsh (RFC 8628): the device code expired.
    public static let expiredToken = ServiceErrorCode("ExpiredToken", 400)
    /// authsh (RFC 8628, OAuth 2.0): the person denied the request.
    public static let accessDenied = ServiceErrorCode("AccessDenied", 400)
    /// authsh: unlinking would leave the user with no way to sign in.
    public static let cannotUnlinkLastIdentity = ServiceErrorCode("CannotUnlinkLastIdentity", 400)
    /// authsh (`oneAccountPerEmail`): the verified email belongs to another user; the body
    /// carries `email`, `providers`, `provider` and a `pendingCredential` to link.
    public static let accountExistsWithDifferentCredential = ServiceErrorCode("AccountExistsWithDifferentCredential", 409)
    /// authsh: the app hides which emails have accounts (`emailEnumerationProtection`).
    public static let enumerationProtected = ServiceErrorCode("EnumerationProtected", 403)
    /// authsh (`recentLoginSeconds`): log in again before this operation.
    public static let requiresRecentLogin = ServiceErrorCode("RequiresRecentLogin", 401)
    /// authsh: the user has no session with that id.
    public static let sessionNotFound = ServiceErrorCode("SessionNotFound", 404)

    /// authsh: the first factor was right and the user has a second factor; the body carries
    /// `mfaToken` (complete the login with it and a code, within 5 minutes, once) and `factors`.
    public static let mfaRequired = ServiceErrorCode("MFARequired", 401)
    /// authsh: a TOTP or recovery code that is wrong, used already, or outside its window.
    public static let invalidMFACode = ServiceErrorCode("InvalidMFACode", 401)
    /// authsh: the user has no such second factor (none to confirm, or none to remove).
    public static let mfaFactorNotFound = ServiceErrorCode("MFAFactorNotFound", 404)
    /// authsh: the user has that second factor already.
    public static let mfaFactorExists = ServiceErrorCode("MFAFactorExists", 409)

    /// authsh: an app's hook (`beforeUserCreated`, `beforeLogin`, `accessTokenClaims`) refused the
    /// login or refresh, or failed; the message is the hook's reason.
    public static let hookRefused = ServiceErrorCode("HookRefused", 403)

    /// authsh: the admin API refused the key presented.
    public static let invalidAdminKey = ServiceErrorCode("InvalidAdminKey", 401)

    private static let known: [String: Int] = Dictionary(
        uniqueKeysWithValues: [
            invalidSession, invalidPassword, accountNameInUse, userNotFound, userAlreadyConfirmed, userDisabled,
            authError, badRequest, invalidParameter, missingParameter, missingAuthReq, apiKeyNotFound,
            apiKeyAlreadyExists, authProviderNotFound, functionNotFound, serviceNotFound, functionExecutionError,
            executionTimeLimitExceeded, internalServerError, maintenanceInProgress, appNotFound, notFound,
            payloadTooLarge, methodNotAllowed, unsupportedMediaType, forbidden, tooManyRequests,
            identityProviderUnavailable, authorizationPending, slowDown, expiredToken, accessDenied, cannotUnlinkLastIdentity,
            accountExistsWithDifferentCredential, enumerationProtected, requiresRecentLogin, sessionNotFound,
            invalidAdminKey, hookRefused, mfaRequired, invalidMFACode, mfaFactorNotFound, mfaFactorExists,
        ].map { ($0.rawValue, $0.status) })
}

/// An error as the service reports it: `{"error": message, "error_code": code, "link": link}`.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The machine-readable name.
    public var code: ServiceErrorCode
    /// The human-readable message (never contains a secret).
    public var message: String
    /// The HTTP status.
    public var status: Int
    /// An optional link to more information (App Services pointed at its logs).
    public var link: String?
    /// Seconds before trying again (`TooManyRequests`), sent as `Retry-After`.
    public var retryAfter: Int?
    /// Fields of the body beyond `error`, `error_code` and `link` (the account-exists
    /// conflict's `email`, `providers`, `provider` and `pendingCredential`).
    public var details: EJSONDocument = [:]

    /// An error with `code`'s default status unless `status` is given.
    public init(_ code: ServiceErrorCode, _ message: String, status: Int? = nil, link: String? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status ?? code.status
        self.link = link
        self.retryAfter = retryAfter
    }

    /// The wire body.
    public var body: EJSON {
        var doc: EJSONDocument = ["error": .string(message), "error_code": .string(code.rawValue)]
        if let link { doc["link"] = .string(link) }
        for (key, value) in details where doc[key] == nil { doc[key] = value }
        return .document(doc)
    }

    /// Reads an error body; nil when it is not one.
    public init?(body: EJSON, status: Int) {
        guard case .string(let code)? = body["error_code"] else { return nil }
        self.init(
            ServiceErrorCode(rawValue: code), body["error"]?.stringValue ?? "", status: status,
            link: body["link"]?.stringValue)
        if case .document(let doc) = body {
            for (key, value) in doc where !["error", "error_code", "link"].contains(key) { details[key] = value }
        }
    }

    public var description: String { "\(code.rawValue) (\(status)): \(message)" }
}
