// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Passwords: hashing, and the check of a login (the same answer, and about the same time, for
/// an unknown user and a wrong password; failed-login back-off before any hashing).
struct Passwords {
    let store: any UserpassStore
    let hasher: PasswordHasher
    /// Verified against when the user is unknown, so that both answers take as long.
    let dummyHash: String
    let backoff: LoginBackoff
    let abuse: AbuseControls
    let clock: ServerClock

    /// Passwords are 6 to 128 characters.
    static func checkLength(_ password: String) throws(ServiceError) {
        guard (6...128).contains(password.count) else {
            throw ServiceError(.badRequest, "password must be between 6 and 128 characters")
        }
    }

    /// Takes as long as checking a password does, for an answer that must not tell an
    /// unknown user from a wrong password.
    func spendCheckTime(_ password: String) async throws {
        _ = try await hasher.verify(password, against: dummyHash)
    }

    /// A user the app's `migrateUser` hook brought in for an email no account had: what its
    /// user starts with.
    struct MigratedUser: Sendable, Equatable {
        var data: EJSONDocument = [:]
        var customData: EJSONDocument?
        var emailVerified = false
    }

    /// The email/password check of a login or link: the same answer and about the same time
    /// for an unknown user and a wrong password. An address in back-off for that account is
    /// refused before any hashing (``LoginBackoff``).
    func check(app: AppRuntime, email: String, password: String, address: String) async throws -> UserpassAccount {
        try await check(app: app, email: email, password: password, address: address, migrate: nil).account
    }

    /// ``check(app:email:password:address:)``; for an email no account has, `migrate` (the
    /// app's `migrateUser` hook) may bring the user in, after the rate limits and back-off: its
    /// account is written with an Argon2id hash of this password (confirmed), and what the hook
    /// gave comes back for the user it starts.
    func check(
        app: AppRuntime, email: String, password: String, address: String,
        migrate: (@Sendable (String, String) async throws -> MigratedUser?)?
    ) async throws -> (account: UserpassAccount, migrated: MigratedUser?) {
        let backoffKey = AbuseControls.backoffAccount(app, email)
        let now = clock.now
        let limited = abuse.rateLimited(app)
        let standing = limited ? try await backoff.standing(address: address, account: backoffKey, now: now) : nil
        // Only an address that failed on this account waits: for its own back-off, or for the
        // account's failures from everywhere (the per-account `login` limit).
        var wait = standing?.wait
        if wait == nil, standing?.failed == true { wait = try await abuse.passwordFailureLimit(app: app, account: backoffKey, counting: false) }
        if let wait {
            AuditTrail.event("lockout")
            throw AbuseControls.tooMany(wait)
        }
        var account = try await store.userpassAccount(app: app.id, email: email)
        var migrated: MigratedUser?
        if account == nil, let migrate, (try? Emails.check(email)) != nil, let brought = try await migrate(email, password) {
            account = try await writeMigrated(email: email, password: password, emailVerified: brought.emailVerified, app: app)
            if account == nil {
                account = try await store.userpassAccount(app: app.id, email: email)
            } else {
                migrated = brought
            }
        }
        // A migrated account's hash was just made from this password.
        let matches = migrated != nil ? true : try await hasher.verify(password, against: account?.passwordHash ?? dummyHash)
        guard let account, matches else {
            if limited {
                try await backoff.failed(address: address, account: backoffKey, now: now)
                _ = try await abuse.passwordFailureLimit(app: app, account: backoffKey, counting: true)
            }
            throw ServiceError(.invalidPassword, "invalid username/password")
        }
        if standing?.failed == true { try await backoff.succeeded(address: address, account: backoffKey) }
        guard account.confirmed else { throw ServiceError(.authError, "confirmation required") }
        if hasher.needsRehash(account.passwordHash) {
            let hash = try await hasher.hash(password)
            try await store.setPassword(app: app.id, email: email, hash: hash)
        }
        return (account, migrated)
    }

    /// The account of a migrated user, written; nil when another request wrote one for the
    /// email meanwhile (its own password then decides).
    private func writeMigrated(email: String, password: String, emailVerified: Bool, app: AppRuntime) async throws -> UserpassAccount? {
        let account = UserpassAccount(
            appId: app.id, email: email, passwordHash: try await hasher.hash(password), identityId: clock.newId(), confirmed: true,
            createdAt: clock.now, emailVerified: emailVerified)
        do {
            try await store.insertUserpassAccount(account)
        } catch let error as StoreError where error.isConflict {
            return nil
        }
        AuditTrail.event("user_migrated")
        return account
    }
}
