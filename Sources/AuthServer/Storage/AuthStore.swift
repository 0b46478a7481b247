// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Why a store operation failed, in terms the routes can answer.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable { case conflict, unavailable }
    let code: Code
    /// What was being done (never a bound value: no password, token or key).
    public let operation: String

    /// A unique key already exists (email, identity, API key name).
    public static func conflict(_ operation: String) -> StoreError { .init(code: .conflict, operation: operation) }
    /// The database failed (disk, corruption, lock timeout).
    public static func unavailable(_ operation: String) -> StoreError { .init(code: .unavailable, operation: operation) }

    public var isConflict: Bool { code == .conflict }
    public var description: String { code == .conflict ? "conflict: \(operation)" : "database error: \(operation)" }
}

/// Everything the server keeps. One interface, so routes never know the engine
/// (SQLite now; PostgreSQL can implement the same protocol).
public protocol AuthStore: Sendable {
    /// Lets the database's connections go (a PostgreSQL pool's); the store answers nothing
    /// afterwards. A command that reads and exits calls it; a server's store lives as long as
    /// the process.
    func close()

    // Signing keys
    /// The app's key material for `algorithm`, creating it with `make` if there is none yet.
    func signingKey(app: String, algorithm: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8]
    /// The app's key material for `algorithm`, or nil when none was made yet.
    func existingSigningKey(app: String, algorithm: String) async throws -> [UInt8]?

    // Users and identities
    /// Inserts a user with its identities, and queues `events` (its triggers' runs) in the same
    /// transaction; conflict if an identity belongs to someone already.
    func insertUser(_ user: UserRecord, events: [TriggerRun]) async throws
    /// The user with its identities, or nil.
    func user(id: String, app: String) async throws -> UserRecord?
    /// The id of the user holding this identity, or nil.
    func userId(app: String, providerType: String, externalId: String) async throws -> String?
    /// The user holding this identity, with its identities, or nil (one read: a returning user's login).
    func user(app: String, providerType: String, externalId: String) async throws -> UserRecord?
    /// Appends an identity (and merges `data` into the profile); conflict if someone holds it.
    func addIdentity(_ identity: IdentityRecord, toUser userId: String, app: String, profile: EJSONDocument) async throws
    /// Removes one identity of a user (and, for `local-userpass`, its account), unless it is
    /// the user's last one.
    func removeIdentity(app: String, userId: String, providerType: String, externalId: String) async throws -> IdentityRemoval
    /// Sets the user's custom data document; false when the app has no such user.
    @discardableResult
    func setCustomData(_ data: EJSONDocument?, userId: String, app: String) async throws -> Bool
    /// Deletes the user, its identities, sessions, API keys and email/password accounts, and
    /// queues `events` in the same transaction (none when there was no such user).
    func deleteUser(id: String, app: String, events: [TriggerRun]) async throws

    /// Sets the verified email of an identity (its provider's email changed since the last login).
    func setIdentityEmail(_ email: String?, app: String, providerType: String, externalId: String) async throws
    /// Who holds verified email `email` (lowercased): the first user with an identity that
    /// vouches for it, with the providers that user signs in with; else, when `accounts`, a
    /// confirmed email/password account with that email that has not logged in yet; else nil.
    func emailHolder(app: String, email: String, accounts: Bool) async throws -> EmailHolder?

    // Pending credentials (one account per email)
    func insertPendingCredential(_ credential: PendingCredential) async throws
    func pendingCredential(app: String, id: String) async throws -> PendingCredential?
    /// Removes it; true when this call did (so a credential is used once, whoever races).
    func deletePendingCredential(app: String, id: String) async throws -> Bool

    // Email/password
    func userpassAccount(app: String, email: String) async throws -> UserpassAccount?
    /// The account whose `local-userpass` identity is `identityId`, or nil.
    func userpassAccount(app: String, identityId: String) async throws -> UserpassAccount?
    /// Inserts a new account; conflict if the email is taken.
    func insertUserpassAccount(_ account: UserpassAccount) async throws
    func deleteUserpassAccount(app: String, email: String) async throws
    func confirmUserpassAccount(app: String, email: String) async throws
    /// Replaces the password hash (a rehash at login: sessions stay).
    func setPassword(app: String, email: String, hash: String) async throws
    /// Sets a new password and ends every session of the account's user, in one transaction.
    func resetPassword(app: String, email: String, hash: String) async throws
    /// Sets a new password and ends every other session of the account's user (the one that
    /// changed it stays), in one transaction.
    func changePassword(app: String, email: String, hash: String, keepSession: String) async throws
    /// Stores a confirmation or reset token, and queues `mail` (the one that carries it) in the
    /// same transaction. Earlier tokens of that kind for that email stay valid (a new request
    /// must not cancel a mail on its way) unless expired at `now` or older than the newest `keep`.
    func insertToken(_ token: OneTimeToken, now: Int64, keep: Int, mail: QueuedMail?) async throws
    /// Removes one token (a failed reset attempt's), whatever its digest.
    func discardToken(app: String, id: String) async throws
    /// Uses a token once: if the digest matches and it has not expired, removes it and every
    /// other token of its kind for its email, and returns the email.
    func consumeToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String?

    // Sessions
    /// Inserts a session (a login), and queues `events` in the same transaction.
    func insertSession(_ session: SessionRecord, events: [TriggerRun]) async throws
    /// A new user's login in one transaction: `user` as ``insertUser(_:events:)`` inserts it
    /// (with `userEvents`), then `session` as ``insertSession(_:events:)`` does; conflict if an
    /// identity belongs to someone already, and then neither is written.
    func insertUser(_ user: UserRecord, events userEvents: [TriggerRun], session: SessionRecord, sessionEvents: [TriggerRun]) async throws
    /// The session and its user (for a refresh: one read); the user's identities only when
    /// `identities` (a refresh does not need them).
    func sessionWithUser(id: String, identities: Bool) async throws -> (SessionRecord, UserRecord)?
    func deleteSession(id: String) async throws
    /// The user's sessions, oldest first.
    func sessions(userId: String, app: String) async throws -> [SessionRecord]
    /// Ends one session of the user; false when the user has no such session.
    func deleteSession(id: String, userId: String, app: String) async throws -> Bool
    /// Ends every session of the user but `keep`; returns how many ended.
    func deleteSessions(userId: String, app: String, except keep: String) async throws -> Int
    /// A refresh's session and its user (``sessionWithUser(id:identities:)`` without
    /// identities, as they were before this call), and the session marked used at `now` when
    /// the refresh will be answered (`digest` is the session's, it has not expired, its user is
    /// not disabled) and its last use (or its login) is at or before `due`. One statement where
    /// the engine can (PostgreSQL); a read, then a write only when one is due, where it cannot.
    func refreshSession(id: String, digest: [UInt8], now: Int64, due: Int64) async throws -> (SessionRecord, UserRecord)?
    /// Whether a session is live, and whose: what an access token's check needs, in one
    /// indexed read that parses no document (`functions/call` makes it on every call).
    func sessionState(id: String) async throws -> SessionState?

    // API keys
    /// Inserts a key unless the user has `limit` already (returns false) ; conflict on a repeated name.
    func insertAPIKey(_ key: APIKeyRecord, limit: Int) async throws -> Bool
    func apiKeys(userId: String) async throws -> [APIKeyRecord]
    func apiKey(id: String, userId: String) async throws -> APIKeyRecord?
    func apiKey(app: String, digest: [UInt8]) async throws -> APIKeyRecord?
    /// Deletes the key and ends the sessions opened with it. False when the user has no such key.
    func deleteAPIKey(id: String, userId: String) async throws -> Bool
    /// Disables (ending the sessions opened with it) or enables the key.
    func setAPIKeyDisabled(_ disabled: Bool, id: String, userId: String) async throws -> Bool

    // Plugins' key-value store (`context.store`), one namespace per app
    func pluginValue(app: String, key: String) async throws -> EJSON?
    /// Replaces, or inserts while the app holds fewer than `keyLimit` keys; false when a new key
    /// would pass the limit (nothing written).
    func setPluginValue(_ value: EJSON, app: String, key: String, keyLimit: Int) async throws -> Bool
    func deletePluginValue(app: String, key: String) async throws

    // Sign-ins under way (redirect flows, login codes), shared by every instance
    func insertSignIn(_ signIn: SealedSignIn) async throws
    /// Removes it and gives it back; nil when there is none (unknown, or taken already by
    /// this or another instance).
    func takeSignIn(id: String, kind: SealedSignIn.Kind) async throws -> SealedSignIn?
    /// Deletes the sign-ins expired at `time`, of every app; returns how many.
    func deleteExpiredSignIns(at time: Int64) async throws -> Int

    // Second factors
    /// The user's TOTP factor (confirmed or being enrolled) and how many recovery codes they hold.
    func secondFactors(userId: String) async throws -> SecondFactors
    /// Starts a TOTP enrolment, replacing one not confirmed yet; false (nothing written) when
    /// the user has a confirmed factor.
    func startTOTPEnrolment(_ factor: TOTPFactor) async throws -> Bool
    /// Confirms the user's enrolment with a code of `step` at `time` and stores the digests of
    /// their recovery codes (replacing any), in one transaction; false when there is no
    /// enrolment to confirm, or `step` is not after the last one used.
    func confirmTOTP(userId: String, step: Int64, at time: Int64, recoveryCodes: [[UInt8]]) async throws -> Bool
    /// Spends `step` of the user's confirmed factor; false when it is not after the last step
    /// used (a replayed code) or there is no confirmed factor.
    func useTOTPStep(userId: String, step: Int64) async throws -> Bool
    /// Spends one recovery code; false when the user holds none with that digest.
    func useRecoveryCode(userId: String, digest: [UInt8]) async throws -> Bool
    /// Replaces the user's recovery codes.
    func replaceRecoveryCodes(userId: String, digests: [[UInt8]]) async throws
    /// Removes the user's TOTP factor and recovery codes; false when there was no factor.
    func deleteTOTP(userId: String) async throws -> Bool

    // Passkeys
    /// Adds a passkey unless the user holds `limit` already (false); conflict when its id exists.
    func insertPasskey(_ passkey: PasskeyRecord, limit: Int) async throws -> Bool
    /// The user's passkeys, oldest first.
    func passkeys(userId: String) async throws -> [PasskeyRecord]
    func passkey(app: String, id: String) async throws -> PasskeyRecord?
    /// Records a use with the authenticator's `signCount` at `time`, if the counter grew (or
    /// both it and the stored one are 0: an authenticator that keeps none); false otherwise.
    func usePasskey(app: String, id: String, signCount: Int64, at time: Int64) async throws -> Bool
    func renamePasskey(app: String, id: String, userId: String, name: String) async throws -> Bool
    /// Removes the user's passkey and ends the sessions it opened; false when they have none of that id.
    func deletePasskey(app: String, id: String, userId: String) async throws -> Bool

    // Failed-password back-off, shared by every instance
    func loginFailures(key: String) async throws -> LoginFailures?
    /// Counts a failure under `key` at `time` (a count whose last failure is `memory` seconds
    /// old or older starts again) and, in the same transaction, sets the time the key must
    /// wait until to `wait(count)` when that is not nil.
    func countLoginFailure(key: String, at time: Int64, memory: Int64, wait: (Int) -> Int64?) async throws
    func deleteLoginFailures(key: String) async throws
    /// Forgets the counts whose last failure is before `time`; returns how many.
    func deleteLoginFailures(lastBefore time: Int64) async throws -> Int

    // Rate limits, shared by every instance (``StoredRateLimiter``; times in microseconds)
    /// Takes one request from the bucket `key` (GCRA: refused while its `tat` is more than
    /// `tolerance` ahead of `now`; an allowed request moves it on by `interval`), in one
    /// statement: the bucket's `tat` after, and whether this request was refused.
    func takeRate(key: String, now: Int64, interval: Int64, tolerance: Int64) async throws -> (tat: Int64, refused: Bool)
    /// The bucket's `tat`, or nil when it has none (a full bucket).
    func rateBucket(key: String) async throws -> Int64?
    /// Deletes the buckets full at `time` (their `tat` passed); returns how many.
    func deleteFullRateBuckets(at time: Int64) async throws -> Int

    // Mail queue
    func enqueueMail(_ mail: QueuedMail) async throws
    /// Leases up to `limit` queued mails due at `now` until `leaseUntil` (each counts an
    /// attempt); a mail leased by one caller is not given to another until its lease ends.
    func leaseDueMail(now: Int64, leaseUntil: Int64, limit: Int) async throws -> [QueuedMail]
    /// Leases one queued mail, as ``leaseDueMail(now:leaseUntil:limit:)`` does, whatever its time.
    func leaseMail(id: String, now: Int64, leaseUntil: Int64) async throws -> QueuedMail?
    /// Marks it delivered or given up (`state`), erasing its content, if lease `attempt` (the
    /// `attempts` its lease gave) is still its latest: a sender whose lease ran out and was
    /// taken by another changes nothing. True when it did.
    @discardableResult
    func finishMail(id: String, attempt: Int, state: QueuedMail.State, error: String?, at time: Int64) async throws -> Bool
    /// Schedules another attempt at `next`, under the same rule as ``finishMail(id:attempt:state:error:at:)``.
    @discardableResult
    func retryMail(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool
    func queuedMail(id: String) async throws -> QueuedMail?
    /// How many mails wait for delivery, of every app.
    func queuedMailCount() async throws -> Int
    /// Deletes the mails delivered or given up before `time`; returns how many.
    func deleteFinishedMail(before time: Int64) async throws -> Int

    // Trigger runs (the queue of ``TriggerRunner``; rules as the mail queue's)
    func leaseDueTriggerRun(now: Int64, leaseUntil: Int64) async throws -> TriggerRun?
    func leaseTriggerRun(id: String, now: Int64, leaseUntil: Int64) async throws -> TriggerRun?
    /// Marks it done or given up, if lease `attempt` is still its latest; true when it did.
    @discardableResult
    func finishTriggerRun(id: String, attempt: Int, state: TriggerRun.State, error: String?, at time: Int64) async throws -> Bool
    @discardableResult
    func retryTriggerRun(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool
    /// The app's runs, newest first, all or those in `state`.
    func triggerRuns(app: String, state: TriggerRun.State?, limit: Int) async throws -> [TriggerRun]
    /// How many of the app's runs wait.
    func queuedTriggerRunCount(app: String) async throws -> Int
    /// Deletes the runs finished before `time`; returns how many.
    func deleteFinishedTriggerRuns(before time: Int64) async throws -> Int

    // Audit log
    func insertAuditEvents(_ events: [AuditEvent]) async throws
    /// Newest first; oldest first with `after` (``AuditFilter/after``).
    func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent]
    /// Deletes the events before `time`; returns how many.
    func deleteAuditEvents(before time: Int64) async throws -> Int

    // Housekeeping
    /// Deletes the anonymous users (every identity anonymous) created before `time`, of every
    /// app; returns how many.
    func deleteAnonymousUsers(createdBefore time: Int64) async throws -> Int
    /// Deletes the pending credentials expired at `time`, of every app; returns how many.
    func deleteExpiredPendingCredentials(at time: Int64) async throws -> Int

    // Administration
    /// One page of the app's users that `query` selects, by id, each with its identities.
    func listUsers(app: String, query: UserQuery) async throws -> [AdminUserRecord]
    /// The user with its identities and last login, or nil.
    func adminUser(id: String, app: String) async throws -> AdminUserRecord?
    /// Disables (logins and tokens refused, sessions kept for an enable) or enables the user;
    /// false when the app has no such user.
    func setUserDisabled(_ disabled: Bool, id: String, app: String) async throws -> Bool

    // Export and import
    /// Up to `limit` of the app's users after id `cursor` (nil: from the first), by id, each
    /// with its identities, last login and email/password accounts.
    func exportUsers(app: String, after cursor: String?, limit: Int) async throws -> [PortableUser]
    /// How many users the app has.
    func countUsers(app: String) async throws -> Int
    /// Up to `limit` email/password accounts no user holds yet (never logged in), by email after `cursor`.
    func exportLooseAccounts(app: String, after cursor: String?, limit: Int) async throws -> [UserpassAccount]
    /// Writes users (skipping those whose id exists) and accounts without a user (skipping
    /// those whose email exists), in one transaction. A conflict (an identity or email another
    /// user holds) fails it whole.
    func importUsers(_ users: [PortableUser], looseAccounts: [UserpassAccount]) async throws -> ImportCounts

    /// Answers when the database does (`/readyz`).
    func ping() async throws

    // Dev mode
    /// Deletes every user, identity, account, token, session and API key of the app.
    func wipe(app: String) async throws
}

extension AuthStore {
    /// Inserts a user that starts no trigger.
    func insertUser(_ user: UserRecord) async throws { try await insertUser(user, events: []) }

    /// Deletes a user without trigger runs.
    func deleteUser(id: String, app: String) async throws { try await deleteUser(id: id, app: app, events: []) }

    /// Inserts a session that starts no trigger.
    func insertSession(_ session: SessionRecord) async throws { try await insertSession(session, events: []) }

    /// Stores a token that no queued mail carries (see ``insertToken(_:now:keep:mail:)``).
    func insertToken(_ token: OneTimeToken, now: Int64, keep: Int) async throws {
        try await insertToken(token, now: now, keep: keep, mail: nil)
    }
}
