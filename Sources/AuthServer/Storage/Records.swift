import AuthProtocol

/// What ``AuthStore/removeIdentity(app:userId:providerType:externalId:)`` did.
public enum IdentityRemoval: Sendable, Equatable {
    case removed
    /// The user has no such identity.
    case notFound
    /// It is the user's only identity: kept.
    case lastIdentity
}

/// A session's owner and whether that user is disabled (``AuthStore/sessionState(id:)``).
public struct SessionState: Sendable, Equatable {
    public var appId: String
    public var userId: String
    public var userDisabled: Bool
}

/// A user of an app, with its identities in link order.
public struct UserRecord: Sendable, Equatable {
    public var id: String
    public var appId: String
    /// `normal` or `server`.
    public var type = "normal"
    /// Profile `data` (email, name, ...).
    public var data = EJSONDocument()
    /// Custom user data, the `user_data` claim of access tokens.
    public var customData: EJSONDocument?
    public var disabled = false
    public var createdAt: Int64
    public var identities: [IdentityRecord] = []

    /// True when every identity is anonymous.
    public var isAnonymous: Bool { !identities.isEmpty && identities.allSatisfy { $0.providerType == ProviderType.anonymous } }
}

/// One identity of a user: who the user is to one provider.
public struct IdentityRecord: Sendable, Equatable {
    /// The id the provider knows the user by (userpass: the account's identity id; custom-token: `sub`).
    public var externalId: String
    public var providerType: String
    public var providerId: String
    public var data = EJSONDocument()
    /// The email the provider vouches for (verified), lowercased; nil when it vouches for
    /// none. What `oneAccountPerEmail` and `auth/methods` look identities up by.
    public var email: String?
}

/// An email/password account. It gets a user on its first login (or link), as in App Services.
public struct UserpassAccount: Sendable, Equatable {
    public var appId: String
    public var email: String
    /// Argon2id PHC string.
    public var passwordHash: String
    /// The external id of its `local-userpass` identity.
    public var identityId: String
    public var confirmed: Bool
    public var createdAt: Int64
}

/// A login session: the server side of a refresh token.
public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var userId: String
    public var deviceId: String
    public var providerType: String
    public var identityId: String
    /// SHA-256 of the refresh token; the token itself is never stored.
    public var refreshDigest: [UInt8]
    public var createdAt: Int64
    /// nil: never expires (anonymous sessions).
    public var expiresAt: Int64?
    /// When a refresh last used it (to within ``AuthService/lastUsedGranularity``); nil: not since its login.
    public var lastUsed: Int64?
}

/// Who holds a verified email (``AuthStore/emailHolder(app:email:accounts:)``).
public struct EmailHolder: Sendable, Equatable {
    /// The user; nil for a confirmed email/password account that has not logged in yet.
    public var userId: String?
    /// The provider types that user signs in with (no duplicates, in link order; never `anon-user`).
    public var providers: [String]
}

/// An identity a login proved but did not attach, because its verified email belongs to
/// another user (docs/protocol/identity-providers.md section 5). Only the digest of its token is stored.
public struct PendingCredential: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var digest: [UInt8]
    /// The verified email (lowercased) the conflict was about.
    public var email: String
    public var identity: IdentityRecord
    public var expiresAt: Int64
}

/// A user API key; only its digest is stored.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var userId: String
    public var name: String
    public var digest: [UInt8]
    public var disabled: Bool
    public var createdAt: Int64
}

/// A confirmation or reset token; only its digest is stored, and it is used once.
public struct OneTimeToken: Sendable, Equatable {
    public enum Kind: String, Sendable { case confirm, reset }
    /// The `tokenId` of the link.
    public var id: String
    public var appId: String
    public var kind: Kind
    public var email: String
    public var digest: [UInt8]
    public var expiresAt: Int64
}

/// A sign-in under way that any instance may finish: a redirect flow waiting for the IdP's
/// callback, or a login code waiting for its native client (``OAuthFlows``). The store keeps
/// it sealed: its key is a digest of the secret its holder presents, and its content is
/// encrypted under a key derived from that secret, so the table alone reveals nothing.
public struct SealedSignIn: Sendable, Equatable {
    public enum Kind: String, Sendable { case flow, code }
    /// Hex SHA-256 of the secret (the `state` sent to the IdP, or the login code).
    public var id: String
    public var appId: String
    public var kind: Kind
    /// AES-GCM box of the content.
    public var sealed: [UInt8]
    public var expiresAt: Int64
}

/// Failed passwords counted under one key (``LoginBackoff``).
public struct LoginFailures: Sendable, Equatable {
    /// Hex SHA-256 of what is counted (an address and account, or an account).
    public var key: String
    public var failures: Int
    /// Until when the key must wait (0: it need not).
    public var waitUntil: Int64
    public var lastFailure: Int64
}

/// A mail in the delivery queue (``MailQueue``). Written before the request that sends it
/// answers (with the token it carries, in one transaction), and kept until delivered or given
/// up; then its content, which may hold a token, is erased and the record kept a week.
public struct QueuedMail: Sendable, Equatable {
    public enum State: String, Sendable { case queued, sent, failed }
    public var id: String
    public var appId: String
    /// `confirm`, `reset`, `notice` or `plugin`.
    public var kind: String
    public var recipient: String
    /// The message's fields as JSON (``OutboxMessage``); empty once delivered or given up.
    public var content: String
    /// `<...@domain>`: the same on every attempt.
    public var messageId: String
    public var createdAt: Int64
    public var nextAttempt: Int64
    public var attempts: Int = 0
    public var state: State = .queued
    /// Why the last attempt failed (a server's reply or a connection error; never content).
    public var lastError: String?
}

/// One entry of the audit log: an auth event, who and where from, and how it ended. Never a
/// secret: no password, token or key is ever one of its fields.
public struct AuditEvent: Sendable, Equatable {
    /// A `User-Agent` header as the log keeps it: its first 256 bytes (by bytes: one
    /// character can carry thousands of bytes of combining marks).
    public static func userAgent(_ header: String?) -> String? {
        header.map { String(decoding: $0.utf8.prefix(256), as: UTF8.self) }
    }

    /// Assigned by the store, increasing (0 for an event not stored yet).
    public var id: Int64 = 0
    /// Unix seconds.
    public var time: Int64
    public var appId: String
    /// `login`, `password_failed`, `lockout`, `register`, `confirm`, `reset_requested`,
    /// `reset_done`, `password_changed`, `link`, `unlink`, `api_key_created`,
    /// `api_key_enabled`, `api_key_disabled`, `api_key_deleted`, `session_revoked`, `logout`,
    /// `user_deleted`, `plugin_killed`, `rate_limited`.
    public var event: String
    /// `success` or `failure`.
    public var outcome: String
    public var userId: String?
    public var provider: String?
    public var address: String?
    public var userAgent: String?
    /// The error code of a failure, a plugin's name, what was killed: words the server chose.
    public var detail: String?
    /// Who acted when it was not the user: `admin:NAME` for an admin key's action.
    public var actor: String?

    public init(
        time: Int64, appId: String, event: String, outcome: String, userId: String? = nil, provider: String? = nil,
        address: String? = nil, userAgent: String? = nil, detail: String? = nil, actor: String? = nil
    ) {
        self.actor = actor
        self.time = time
        self.appId = appId
        self.event = event
        self.outcome = outcome
        self.userId = userId
        self.provider = provider
        self.address = address
        self.userAgent = userAgent
        self.detail = detail
    }
}

/// Which audit events to read (``AuthStore/auditEvents(_:)``); nil fields match anything.
public struct AuditFilter: Sendable, Equatable {
    public var appId: String?
    public var userId: String?
    public var event: String?
    /// From this time on (Unix seconds).
    public var since: Int64?
    /// Events with an id below this (the page after one ending there).
    public var before: Int64?
    /// Events with an id above this, oldest first (what came after the last one read: a
    /// follower's next read). Without it, the newest come first.
    public var after: Int64?
    public var limit = 100

    public init(
        appId: String? = nil, userId: String? = nil, event: String? = nil, since: Int64? = nil, before: Int64? = nil,
        after: Int64? = nil, limit: Int = 100
    ) {
        self.appId = appId
        self.userId = userId
        self.event = event
        self.since = since
        self.before = before
        self.after = after
        self.limit = limit
    }
}

/// A user as administration sees it: the record, with its identities, and when it last
/// logged in (nil: never, or before authsh kept it).
public struct AdminUserRecord: Sendable, Equatable {
    public var user: UserRecord
    public var lastLoginAt: Int64?
}

/// Which users a listing returns (``AuthStore/listUsers(app:query:)``), oldest id first.
public struct UserQuery: Sendable, Equatable {
    /// This id only.
    public var id: String?
    /// A prefix of one of the user's emails (identities' verified emails, an email/password
    /// account's), lowercased.
    public var emailPrefix: String?
    /// A provider type the user has an identity of.
    public var provider: String?
    /// true: only disabled users; false: only enabled ones.
    public var disabled: Bool?
    public var createdAfter: Int64?
    public var createdBefore: Int64?
    public var lastLoginAfter: Int64?
    public var lastLoginBefore: Int64?
    /// Users whose id sorts after this one (the cursor: the last id of the previous page).
    public var after: String?
    public var limit = 50

    public init() {}
}

/// A user as export and import carry it: the record with its identities, its last login, and
/// the email/password accounts of its `local-userpass` identities (password hashes as PHC
/// strings, or bcrypt's).
public struct PortableUser: Sendable, Equatable {
    public var user: UserRecord
    public var lastLoginAt: Int64?
    public var accounts: [UserpassAccount] = []

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
