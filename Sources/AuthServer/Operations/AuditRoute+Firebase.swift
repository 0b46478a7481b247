// SPDX-License-Identifier: Apache-2.0
import HTTPTypes

/// The Firebase client API's audited methods. Their app is the API key's project's, and the
/// code answering refines the event where the body decides it (a `sendOobCode`'s type, an
/// `update`'s change, a link rather than a sign-in).
extension AuditRoute {
    static let firebaseV1 = "/identitytoolkit.googleapis.com/v1/accounts:"
    static let firebaseV2 = "/identitytoolkit.googleapis.com/v2/accounts/"

    /// The event of a Firebase client API request, or nil when it is not audited (reads, the
    /// token refresh, the Admin API: its changes are recorded as an administrator's).
    static func firebaseEvent(method: HTTPRequest.Method, path: String) -> String? {
        guard method == .post else { return nil }
        if path.hasPrefix(firebaseV1) {
            switch path.dropFirst(firebaseV1.count) {
            case "signUp", "signInWithPassword", "signInWithCustomToken", "signInWithIdp", "signInWithEmailLink", "signInWithPhoneNumber":
                return "login"
            case "sendVerificationCode": return "sms_requested"
            case "update": return "profile_updated"
            case "delete": return "user_deleted"
            case "sendOobCode": return "reset_requested"
            case "resetPassword": return "reset_done"
            default: return nil
            }
        }
        guard path.hasPrefix(firebaseV2) else { return nil }
        switch path.dropFirst(firebaseV2.count) {
        case "mfaEnrollment:start": return "totp_enrolment_started"
        case "mfaEnrollment:finalize": return "totp_enrolled"
        case "mfaEnrollment:withdraw": return "totp_removed"
        case "mfaSignIn:start": return "sms_requested"
        case "mfaSignIn:finalize": return "login"
        default: return nil
        }
    }
}
