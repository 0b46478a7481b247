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

    /// The email/password check of a login or link: the same answer and about the same time
    /// for an unknown user and a wrong password. An address in back-off for that account is
    /// refused before any hashing (``LoginBackoff``).
    func check(app: AppRuntime, email: String, password: String, address: String) async throws -> UserpassAccount {
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
        let account = try await store.userpassAccount(app: app.id, email: email)
        let matches = try await hasher.verify(password, against: account?.passwordHash ?? dummyHash)
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
        return account
    }
}
