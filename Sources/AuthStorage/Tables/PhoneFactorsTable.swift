// SPDX-License-Identifier: Apache-2.0
/// `phone_factors`: users' phone numbers enrolled as second factors (Firebase's `phoneInfo`),
/// any number of them per user, each number once.
package enum PhoneFactorsTable {
    /// A new enrolment; nothing when the user holds the number already.
    package static let insert: SQL = """
        INSERT INTO phone_factors (enrollment_id, user_id, app_id, phone_number, display_name, enrolled_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING RETURNING 1
        """

    package static func arguments(_ f: PhoneFactor) -> [SQLValue] {
        [.text(f.enrollmentId), .text(f.userId), .text(f.appId), .text(f.phoneNumber), .text(f.displayName), .integer(f.enrolledAt)]
    }

    package static let delete: SQL = "DELETE FROM phone_factors WHERE user_id = ? AND enrollment_id = ? RETURNING 1"

    /// A user's TOTP factor and phone factors in one statement: a login reads both, and a user
    /// who never enrolled (nearly every login) costs one read that finds nothing.
    package static let selectWithTOTP: SQL = """
        SELECT 'totp' AS kind, app_id, secret, confirmed_at, last_step, created_at, NULL AS enrollment_id, NULL AS phone_number,
            NULL AS display_name FROM totp_factors WHERE user_id = ?
        UNION ALL
        SELECT 'phone', app_id, NULL, NULL, 0, enrolled_at, enrollment_id, phone_number, display_name FROM phone_factors WHERE user_id = ?
        """

    package static func factor<Row: SQLRow>(_ row: Row, userId: String) throws -> PhoneFactor {
        PhoneFactor(
            userId: userId, appId: try row.text("app_id"), enrollmentId: try row.text("enrollment_id"),
            phoneNumber: try row.text("phone_number"), displayName: try row.optionalText("display_name"),
            enrolledAt: try row.int64("created_at"))
    }
}

/// A phone number enrolled as a user's second factor: a code texted to it completes a login.
public struct PhoneFactor: Sendable, Equatable {
    public var userId: String
    public var appId: String
    /// The enrolment's id (Firebase's `mfaEnrollmentId`): random, unique in the database.
    public var enrollmentId: String
    /// The number, in E.164.
    public var phoneNumber: String
    /// The name the person gave it, if any.
    public var displayName: String?
    public var enrolledAt: Int64

    /// The memberwise initialiser, for the whole package.
    package init(userId: String, appId: String, enrollmentId: String, phoneNumber: String, displayName: String?, enrolledAt: Int64) {
        self.userId = userId
        self.appId = appId
        self.enrollmentId = enrollmentId
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.enrolledAt = enrolledAt
    }
}
