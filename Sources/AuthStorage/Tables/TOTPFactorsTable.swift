// SPDX-License-Identifier: Apache-2.0
/// `totp_factors`: each user's TOTP second factor (one at most), enrolled or being enrolled.
package enum TOTPFactorsTable {
    /// A new enrolment, replacing one not confirmed yet; nothing when one is confirmed.
    package static let start: SQL = """
        INSERT INTO totp_factors (user_id, app_id, secret, confirmed_at, last_step, created_at) VALUES (?, ?, ?, NULL, 0, ?)
        ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, last_step = 0, created_at = excluded.created_at
        WHERE totp_factors.confirmed_at IS NULL RETURNING 1
        """

    package static func startArguments(_ f: TOTPFactor) -> [SQLValue] {
        [.text(f.userId), .text(f.appId), .blob(f.secret), .integer(f.createdAt)]
    }

    package static let select: SQL = "SELECT user_id, app_id, secret, confirmed_at, last_step, created_at FROM totp_factors WHERE user_id = ?"

    package static func factor<Row: SQLRow>(_ row: Row) throws -> TOTPFactor {
        TOTPFactor(
            userId: try row.text("user_id"), appId: try row.text("app_id"), secret: try row.bytes("secret"),
            confirmedAt: try row.optionalInt64("confirmed_at"), lastStep: try row.int64("last_step"),
            createdAt: try row.int64("created_at"))
    }

    /// Confirms the enrolment with a code of step `?`: once, and only a step after the last used.
    package static let confirm: SQL = """
        UPDATE totp_factors SET confirmed_at = ?, last_step = ? WHERE user_id = ? AND confirmed_at IS NULL AND last_step < ?
        RETURNING 1
        """
    /// Spends a step of an enrolled factor: a code is accepted once, and no older one after it.
    package static let useStep: SQL = """
        UPDATE totp_factors SET last_step = ? WHERE user_id = ? AND confirmed_at IS NOT NULL AND last_step < ? RETURNING 1
        """
    package static let delete: SQL = "DELETE FROM totp_factors WHERE user_id = ? RETURNING 1"
}

/// `recovery_codes`: the digests of a user's unused recovery codes.
package enum RecoveryCodesTable {
    package static let insert: SQL = "INSERT INTO recovery_codes (user_id, digest) VALUES (?, ?)"
    package static let deleteOfUser: SQL = "DELETE FROM recovery_codes WHERE user_id = ?"
    /// Spends one: whichever caller's DELETE removes it has used it.
    package static let use: SQL = "DELETE FROM recovery_codes WHERE user_id = ? AND digest = ? RETURNING 1"
    package static let count: SQL = "SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ?"
}

// MARK: the record

/// A user's TOTP factor. Its secret is stored as is: the server must compute codes from it,
/// and the database that holds it holds the token signing keys too (keep it private).
public struct TOTPFactor: Sendable, Equatable {
    public var userId: String
    public var appId: String
    public var secret: [UInt8]
    /// When the enrolment was confirmed with a code; nil while it is being enrolled.
    public var confirmedAt: Int64?
    /// The last step whose code was accepted: no code of it or before it is accepted again.
    public var lastStep: Int64
    public var createdAt: Int64

    /// The memberwise initialiser, for the whole package.
    package init(userId: String, appId: String, secret: [UInt8], confirmedAt: Int64? = nil, lastStep: Int64, createdAt: Int64) {
        self.userId = userId
        self.appId = appId
        self.secret = secret
        self.confirmedAt = confirmedAt
        self.lastStep = lastStep
        self.createdAt = createdAt
    }
}

/// What second factors a user has: what a login must ask for.
public struct SecondFactors: Sendable, Equatable {
    /// The TOTP factor, confirmed or not.
    public var totp: TOTPFactor?
    /// The phone numbers enrolled as second factors.
    public var phones: [PhoneFactor] = []
    /// How many unused recovery codes the user holds.
    public var recoveryCodes: Int
    /// How many passkeys the user holds (counted only with a second factor: they are a second
    /// factor only then).
    public var passkeys: Int = 0

    /// Whether the user has a second factor a login must ask for: a confirmed TOTP factor or
    /// an enrolled phone.
    public var any: Bool { totp?.confirmedAt != nil || !phones.isEmpty }

    /// The factor types a login may complete with once the user has a second factor (``any``):
    /// `totp` when confirmed, `phone` when a number is enrolled, `passkey` when the user holds
    /// one, `recovery_code` while any is left; none otherwise (a user with passkeys alone logs
    /// in with them, and their password alone).
    public var usable: [String] {
        guard any else { return [] }
        return (totp?.confirmedAt != nil ? ["totp"] : []) + (phones.isEmpty ? [] : ["phone"]) + (passkeys > 0 ? ["passkey"] : [])
            + (recoveryCodes > 0 ? ["recovery_code"] : [])
    }

    /// The memberwise initialiser, for the whole package.
    package init(totp: TOTPFactor? = nil, phones: [PhoneFactor] = [], recoveryCodes: Int, passkeys: Int = 0) {
        self.totp = totp
        self.phones = phones
        self.recoveryCodes = recoveryCodes
        self.passkeys = passkeys
    }
}
