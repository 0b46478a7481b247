// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An error of the Firebase Auth API as Google's APIs answer it: `{"error": {"code": 400,
/// "message": "EMAIL_EXISTS", "errors": [{"message": "EMAIL_EXISTS", "reason": "invalid",
/// "domain": "global"}], "status": ...}}`. The SDKs map the part of `message` before ` : `
/// to their `auth/...` codes; what follows it is for people.
struct FirebaseError: Error, Sendable, Equatable {
    /// The HTTP status.
    var code: Int
    /// The SDKs' string (`EMAIL_EXISTS`), then ` : ` and a detail when there is one.
    var message: String
    /// Google's status name (`INVALID_ARGUMENT`), for the errors of the API layer.
    var status: String?
    /// The `reason` of `errors[0]` (`invalid`), and of Google's `ErrorInfo` for key errors.
    var reason = "invalid"

    init(_ code: Int, _ message: String, status: String? = nil, reason: String = "invalid") {
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason
    }

    /// A 400 with `name` (the SDKs' string) and, when given, a detail after ` : `.
    static func invalid(_ name: String, _ detail: String? = nil) -> FirebaseError {
        FirebaseError(400, detail.map { "\(name) : \($0)" } ?? name)
    }

    /// No API key: Google's answer to an unidentified caller.
    static let missingAPIKey = FirebaseError(
        403,
        "Method doesn't allow unregistered callers (callers without established identity). "
            + "Please use API Key or other form of API consumer identity to call this API.",
        status: "PERMISSION_DENIED", reason: "forbidden")
    /// An API key no project has.
    static let invalidAPIKey = FirebaseError(
        400, "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT", reason: "API_KEY_INVALID")

    /// The body Google's APIs answer with.
    var body: EJSON {
        var error: EJSONDocument = [
            "code": .int64(Int64(code)), "message": .string(message),
            "errors": [["message": .string(message), "reason": .string(reason), "domain": "global"]],
        ]
        if let status { error["status"] = .string(status) }
        return ["error": .document(error)]
    }

    /// A service's refusal in Firebase's words.
    static func from(_ error: ServiceError) -> FirebaseError {
        switch error.code {
        case .userDisabled: return invalid("USER_DISABLED")
        case .tooManyRequests:
            return FirebaseError(
                400, "TOO_MANY_ATTEMPTS_TRY_LATER : \(error.message)", status: nil, reason: "invalid")
        case .hookRefused: return invalid("BLOCKING_FUNCTION_ERROR_RESPONSE", error.message)
        case .authProviderNotFound: return invalid("OPERATION_NOT_ALLOWED", error.message)
        case .invalidSession: return invalid("INVALID_ID_TOKEN", error.message)
        case .requiresRecentLogin: return invalid("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", error.message)
        case .invalidMFACode: return invalid("INVALID_CODE", error.message)
        case .mfaFactorNotFound: return invalid("MFA_ENROLLMENT_NOT_FOUND", error.message)
        case .mfaFactorExists: return invalid("SECOND_FACTOR_EXISTS", error.message)
        case .payloadTooLarge: return FirebaseError(413, error.message, status: "INVALID_ARGUMENT")
        case .internalServerError, .serviceUnavailable, .maintenanceInProgress:
            return FirebaseError(error.status, error.message, status: "INTERNAL", reason: "backendError")
        case .identityProviderUnavailable: return FirebaseError(502, error.message, status: "UNAVAILABLE", reason: "backendError")
        default: return invalid("INVALID_ARGUMENT", error.message)
        }
    }
}
