// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// The checks of an import across lines and against the database, before anything is written:
/// no id, identity, email or passkey twice in the file; none another user already holds. A user whose
/// id the app has, and an account whose email it has, are skipped (so an import run twice
/// changes nothing), and not checked further.
///
/// What a login finds an account's user by is the account's `identityId`, so an identity is
/// never given twice: not to a user line when an account (registered, not logged in yet)
/// already has it, not to an account line when a user or another account holds it. Nor is a
/// verified email another user holds: one account per email would send its sign-ins there.
struct ImportCheck {
    enum Verdict: Sendable, Equatable {
        case write
        /// The app has it already.
        case skip
        /// Not data (the end line).
        case ignore
    }

    let store: any UserStore & UserpassStore & PasskeyStore
    let app: String
    private var ids: Set<String> = []
    private var identities: Set<String> = []
    private var emails: Set<String> = []
    private var passkeys: Set<String> = []
    /// Verified emails of the file's users (one user's identities may share one).
    private var verifiedEmails: Set<String> = []
    private var accountLines = 0
    private var ended = false

    init(store: any UserStore & UserpassStore & PasskeyStore, app: String) {
        self.store = store
        self.app = app
    }

    mutating func check(_ parsed: TransferLine.Parsed) async throws -> Verdict {
        guard !ended else { throw TransferLine.Invalid("a line after the end line") }
        switch parsed {
        case .end(let users, let accounts):
            ended = true
            guard users == ids.count, accounts == accountLines else {
                throw TransferLine.Invalid(
                    "the end line counts \(users) users and \(accounts) accounts, the file has \(ids.count) and \(accountLines): it was cut or edited"
                )
            }
            return .ignore
        case .user(let p):
            guard ids.insert(p.user.id).inserted else { throw TransferLine.Invalid("user id \(p.user.id) is in the file twice") }
            for i in p.user.identities {
                guard identities.insert(i.providerType + "\u{0}" + i.externalId).inserted else {
                    throw TransferLine.Invalid("identity \(i.providerType) \(i.externalId) is in the file twice")
                }
            }
            for a in p.accounts { try claim(a.email) }
            for email in Set(p.user.identities.compactMap(\.email)) where !verifiedEmails.insert(email).inserted {
                throw TransferLine.Invalid("email \(email) is verified for two users in the file")
            }
            for k in p.passkeys where !passkeys.insert(k.id).inserted {
                throw TransferLine.Invalid("passkey \(k.id) is in the file twice")
            }
            if try await store.user(id: p.user.id, app: app) != nil { return .skip }
            for k in p.passkeys where try await store.passkey(app: app, id: k.id) != nil {
                throw TransferLine.Invalid("passkey \(k.id) is another user's already")
            }
            for i in p.user.identities {
                try await checkUnheld(i.providerType, i.externalId)
                if let email = i.email, try await store.emailHolder(app: app, email: email, accounts: false) != nil {
                    throw TransferLine.Invalid("email \(email) of identity \(i.providerType) \(i.externalId) is another user's already")
                }
            }
            for a in p.accounts where try await store.userpassAccount(app: app, email: a.email) != nil {
                throw TransferLine.Invalid("email \(a.email) has an account already")
            }
            return .write
        case .account(let a):
            accountLines += 1
            try claim(a.email)
            guard identities.insert(ProviderType.userpass + "\u{0}" + a.identityId).inserted else {
                throw TransferLine.Invalid("identity \(ProviderType.userpass) \(a.identityId) is in the file twice")
            }
            if try await store.userpassAccount(app: app, email: a.email) != nil { return .skip }
            try await checkUnheld(ProviderType.userpass, a.identityId)
            return .write
        }
    }

    /// Refuses an identity a user holds, or (email/password) an account holds: a login finds
    /// its user through it.
    private func checkUnheld(_ providerType: String, _ externalId: String) async throws {
        if let owner = try await store.userId(app: app, providerType: providerType, externalId: externalId) {
            throw TransferLine.Invalid("identity \(providerType) \(externalId) belongs to user \(owner) already")
        }
        if providerType == ProviderType.userpass, try await store.userpassAccount(app: app, identityId: externalId) != nil {
            throw TransferLine.Invalid("identity \(providerType) \(externalId) is an account's already")
        }
    }

    private mutating func claim(_ email: String) throws(TransferLine.Invalid) {
        guard emails.insert(email.lowercased()).inserted else { throw TransferLine.Invalid("email \(email) is in the file twice") }
    }
}
