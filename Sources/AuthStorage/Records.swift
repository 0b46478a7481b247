// SPDX-License-Identifier: Apache-2.0
// The store's values that are no one table's row: what an operation did (`IdentityRemoval`,
// `ImportCounts`), and what one puts together from several tables (`EmailHolder`: identities and
// email/password accounts; `AdminUserRecord` and `PortableUser`: a user with its identities, last
// login and accounts). A table's own record is beside its statements in `Tables/`; the filters
// are in `AuditFilter.swift` and `UserQuery.swift`.

/// What ``AuthStore/removeIdentity(app:userId:providerType:externalId:)`` did.
public enum IdentityRemoval: Sendable, Equatable {
    case removed
    /// The user has no such identity.
    case notFound
    /// It is the user's only identity: kept.
    case lastIdentity
}

/// Who holds a verified email (``AuthStore/emailHolder(app:email:accounts:)``).
public struct EmailHolder: Sendable, Equatable {
    /// The user; nil for a confirmed email/password account that has not logged in yet.
    public var userId: String?
    /// The provider types that user signs in with (no duplicates, in link order; never `anon-user`).
    public var providers: [String]

    /// The memberwise initialiser, for the whole package.
    package init(userId: String? = nil, providers: [String]) {
        self.userId = userId
        self.providers = providers
    }
}

/// A user as administration sees it: the record, with its identities, and when it last
/// logged in (nil: never, or before authsh kept it).
public struct AdminUserRecord: Sendable, Equatable {
    public var user: UserRecord
    public var lastLoginAt: Int64?
    /// When the user's tokens are valid from (Firebase's `validSince`): the last revocation's
    /// time, or nil when there was none.
    public var validSince: Int64?

    /// The memberwise initialiser, for the whole package.
    package init(user: UserRecord, lastLoginAt: Int64? = nil, validSince: Int64? = nil) {
        self.user = user
        self.lastLoginAt = lastLoginAt
        self.validSince = validSince
    }
}

/// A user as export and import carry it: the record with its identities, its last login, and
/// the email/password accounts of its `local-userpass` identities (password hashes as PHC
/// strings, or bcrypt's).
public struct PortableUser: Sendable, Equatable {
    public var user: UserRecord
    public var lastLoginAt: Int64?
    public var accounts: [UserpassAccount] = []
    /// The user's TOTP factor, phone factors, the digests of their unused recovery codes, and
    /// their passkeys.
    public var totp: TOTPFactor? = nil
    public var phones: [PhoneFactor] = []
    public var recoveryCodes: [[UInt8]] = []
    public var passkeys: [PasskeyRecord] = []

    public init(user: UserRecord, lastLoginAt: Int64?, accounts: [UserpassAccount] = []) {
        self.user = user
        self.lastLoginAt = lastLoginAt
        self.accounts = accounts
    }
}

/// What one batch of an import did.
public struct ImportCounts: Sendable, Equatable {
    /// Users and accounts written.
    public var imported = 0
    /// Users whose id, and accounts whose email, the app had already (an import run twice).
    public var skipped = 0

    public init(imported: Int = 0, skipped: Int = 0) {
        self.imported = imported
        self.skipped = skipped
    }
}
