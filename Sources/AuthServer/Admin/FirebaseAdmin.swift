// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// The Firebase Admin API's user management (what the Admin SDKs call) on authsh's admin
/// rules: the same store, each change in the audit log with the caller's key name (`owner` in
/// dev mode), deletions through the `DELETE` triggers.
struct FirebaseAdmin {
    let store: any AuthStore
    let clock: ServerClock
    let admin: AdminService
    /// The changes the client API's `accounts:update` makes too.
    let accounts: FirebaseAccounts
    /// The email actions (`sendOobCode`).
    let actions: FirebaseActions

    /// A user and the fields only the Admin API shows.
    typealias Shown = (user: UserRecord, admin: FirebaseUserInfo.AdminFields)

    // MARK: reading

    /// The user of `id` in the project's app, with its admin fields, or nil.
    func user(id: String, project: FirebaseProjects.Project) async throws -> Shown? {
        guard let found = try await store.adminUser(id: id, app: project.app.id) else { return nil }
        return Self.shown(found)
    }

    /// A user as the Admin API shows it.
    private static func shown(_ record: AdminUserRecord) -> Shown {
        (record.user, .init(lastLoginAt: record.lastLoginAt, validSince: record.validSince))
    }

    /// `accounts:lookup`: the users of these ids, emails and provider identities (each once).
    func lookup(
        localIds: [String], emails: [String], phoneNumbers: [String] = [], federated: [(providerId: String, rawId: String)],
        project: FirebaseProjects.Project
    ) async throws -> [Shown] {
        let app = project.app
        var ids: [String] = localIds
        for email in emails {
            if let account = try await store.userpassAccount(app: app.id, email: email),
                let id = try await store.userId(app: app.id, providerType: ProviderType.userpass, externalId: account.identityId)
            {
                ids.append(id)
            } else if let holder = try await store.emailHolder(app: app.id, email: email, accounts: false), let id = holder.userId {
                ids.append(id)
            }
        }
        for number in phoneNumbers {
            if let id = try await store.userId(app: app.id, providerType: ProviderType.phone, externalId: number) { ids.append(id) }
        }
        for (providerId, rawId) in federated {
            guard let type = FirebaseIdentities.providerType(providerId) else { continue }
            if let id = try await store.userId(app: app.id, providerType: type, externalId: rawId) { ids.append(id) }
        }
        var seen = Set<String>()
        var found: [Shown] = []
        for id in ids where seen.insert(id).inserted {
            if var shown = try await user(id: id, project: project) {
                shown.admin.mfaInfo = FirebaseSecondFactors.mfaInfo(try await store.secondFactors(userId: id))
                found.append(shown)
            }
        }
        return found
    }

    /// `accounts:batchGet`: a page of the app's users by id, and the next page's token.
    func page(after token: String?, limit: Int, project: FirebaseProjects.Project) async throws -> (users: [Shown], next: String?) {
        var query = UserQuery()
        query.after = token
        query.limit = limit
        let listed = try await store.listUsers(app: project.app.id, query: query)
        return (listed.map(Self.shown), listed.count == limit ? listed.last?.user.id : nil)
    }

    /// How many users the app has (`accounts:query` with `returnUserInfo: false`).
    func count(project: FirebaseProjects.Project) async throws -> Int {
        try await store.countUsers(app: project.app.id)
    }

    // MARK: changing

    /// What `accounts` (create) makes.
    struct NewUser: Sendable {
        var localId: String?
        var email: String?
        var password: String?
        var displayName: String?
        var photoUrl: String?
        var emailVerified = false
        var disabled = false
        var phoneNumber: String?
    }

    /// `POST projects/P/accounts`: a new user (no hook runs, as no blocking function runs
    /// for Firebase's). `DUPLICATE_LOCAL_ID` and `EMAIL_EXISTS` as Firebase answers them.
    func create(_ new: NewUser, project: FirebaseProjects.Project, by actor: AdminActor) async throws -> UserRecord {
        let app = project.app
        var info: EJSONDocument = ["localId": .string(new.localId ?? clock.newId())]
        if let email = new.email {
            info["email"] = .string(email)
            info["emailVerified"] = .bool(new.emailVerified)
        }
        if let name = new.displayName { info["displayName"] = .string(name) }
        if let url = new.photoUrl { info["photoUrl"] = .string(url) }
        if let number = new.phoneNumber {
            guard AppConfiguration.Phone.isValid(number) else { throw FirebaseError.invalid("INVALID_PHONE_NUMBER", "Invalid format.") }
            info["phoneNumber"] = .string(number)
        }
        info["disabled"] = .bool(new.disabled)
        var portable: PortableUser
        let importing = try FirebaseImport([:], app: app, now: clock.now)
        do {
            portable = try importing.user(.document(info))
        } catch {
            throw FirebaseError.invalid(error.message == "email is invalid" ? "INVALID_EMAIL" : "INVALID_ARGUMENT", error.message)
        }
        if let password = new.password {
            guard (6...128).contains(password.count) else {
                throw FirebaseError.invalid("WEAK_PASSWORD", "Password should be at least 6 characters")
            }
            guard !portable.accounts.isEmpty else { throw FirebaseError.invalid("INVALID_ARGUMENT", "a password needs an email") }
            portable.accounts[0].passwordHash = try await accounts.passwords.hasher.hash(password)
        }
        try await importOne(portable, app: app)
        await admin.adminRecord("user_created", app: app, user: portable.user.id, by: actor)
        return portable.user
    }

    /// Writes one user, or Firebase's refusal for the id or the email already taken.
    private func importOne(_ portable: PortableUser, app: AppRuntime) async throws {
        try await checkOne(portable, app: app)
        let counts: ImportCounts
        do {
            counts = try await store.importUsers([portable], looseAccounts: [])
        } catch let error as StoreError where error.isConflict {
            // The id and the emails were free a moment ago: an identity is another user's.
            throw FirebaseError.invalid("DUPLICATE_RAW_ID", "an identity of the user is another user's")
        }
        // Another app's user has the id (ids are the server's, not one app's).
        guard counts.imported == 1 else { throw FirebaseError.invalid("DUPLICATE_LOCAL_ID") }
    }

    /// What the Admin API's `accounts:update` changes beyond a user's own (nil: unchanged).
    struct Change: Sendable {
        var profile = FirebaseAccounts.Update()
        var emailVerified: Bool?
        var disabled: Bool?
        /// A `customAttributes` JSON string (`{}` removes them).
        var customAttributes: String?
        /// Tokens from before this time are revoked (seconds).
        var validSince: Int64?
        /// The user's phone number, set or replaced.
        var phoneNumber: String?
    }

    /// `accounts:update` with `localId`: the user's own changes, then the admin's.
    func update(localId: String, _ change: Change, project: FirebaseProjects.Project, by actor: AdminActor) async throws -> Shown {
        let app = project.app
        guard var user = try await store.user(id: localId, app: app.id) else { throw FirebaseError.invalid("USER_NOT_FOUND") }
        let claims = try change.customAttributes.map { text throws(FirebaseError) in try FirebaseClaims.parse(text) }
        if let number = change.phoneNumber { user = try await setPhoneNumber(number, of: user, app: app) }
        user = try await accounts.apply(change.profile, to: user, app: app, keepSession: "")
        if let verified = change.emailVerified, let account = try await accounts.userpassAccount(of: user, app: app) {
            try await store.setEmailVerified(verified, app: app.id, email: account.email)
            try await store.setIdentityEmail(
                verified && LoginService.userpassVouches(app) ? Emails.vouched(account.email) : nil, app: app.id,
                providerType: ProviderType.userpass, externalId: account.identityId)
        }
        if let disabled = change.disabled, disabled != user.disabled {
            try await admin.adminSetDisabled(disabled, app: app, id: user.id, by: actor)
        }
        if let claims {
            _ = try await store.setCustomData(claims, userId: user.id, app: app.id)
            await admin.adminRecord("custom_data_set", app: app, user: user.id, by: actor)
        }
        if let since = change.validSince {
            _ = try await store.revokeTokens(userId: user.id, app: app.id, before: since)
            await admin.adminRecord("session_revoked", app: app, user: user.id, by: actor, detail: "valid since \(since)")
        } else if change.profile.password != nil {
            await admin.adminRecord("password_set", app: app, user: user.id, by: actor)
        }
        if change.profile.email != nil { await admin.adminRecord("email_set", app: app, user: user.id, by: actor) }
        guard let shown = try await self.user(id: user.id, project: project) else { throw FirebaseError.invalid("USER_NOT_FOUND") }
        return shown
    }

    /// The user with `number` as its phone number (its `phone` identity, a former one removed):
    /// `INVALID_PHONE_NUMBER`, `PHONE_NUMBER_EXISTS` when another user holds it.
    private func setPhoneNumber(_ number: String, of user: UserRecord, app: AppRuntime) async throws -> UserRecord {
        guard AppConfiguration.Phone.isValid(number) else { throw FirebaseError.invalid("INVALID_PHONE_NUMBER", "Invalid format.") }
        let former = user.identities.filter { $0.providerType == ProviderType.phone }
        guard !former.contains(where: { $0.externalId == number }) else { return user }
        if try await store.userId(app: app.id, providerType: ProviderType.phone, externalId: number) != nil {
            throw FirebaseError.invalid("PHONE_NUMBER_EXISTS")
        }
        do {
            try await store.addIdentity(FirebaseImport.phoneIdentity(number, app: app), toUser: user.id, app: app.id, profile: user.data)
        } catch let error as StoreError where error.isConflict {
            throw FirebaseError.invalid("PHONE_NUMBER_EXISTS")
        }
        for old in former {
            _ = try await store.removeIdentity(app: app.id, userId: user.id, providerType: ProviderType.phone, externalId: old.externalId)
        }
        guard let fresh = try await store.user(id: user.id, app: app.id) else { throw FirebaseError.invalid("USER_NOT_FOUND") }
        return fresh
    }

    /// `createSessionCookie`: a session cookie of an ID token whose session is live and whose
    /// user is enabled.
    func sessionCookie(idToken: String, lifetime: Int64, project: FirebaseProjects.Project) async throws -> String {
        let (token, _) = try await accounts.holder(idToken: idToken, project: project)
        return try await accounts.idTokens.sessionCookie(of: token, project: project, lifetime: lifetime)
    }

    /// `accounts:delete` with `localId`.
    func delete(localId: String, project: FirebaseProjects.Project, by actor: AdminActor) async throws {
        do {
            try await admin.adminDelete(app: project.app, id: localId, by: actor)
        } catch let error as ServiceError where error.code == .userNotFound {
            throw FirebaseError.invalid("USER_NOT_FOUND")
        }
    }

    /// `accounts:batchDelete`: each user deleted unless it is enabled and `force` is not set;
    /// ids no user has are passed over, as Firebase does. The refusals, by index.
    func batchDelete(
        localIds: [String], force: Bool, project: FirebaseProjects.Project, by actor: AdminActor
    ) async throws -> [(index: Int, localId: String, message: String)] {
        var refused: [(Int, String, String)] = []
        for (index, id) in localIds.enumerated() {
            guard let user = try await store.user(id: id, app: project.app.id) else { continue }
            guard user.disabled || force else {
                refused.append((index, id, "NOT_DISABLED : Disable the account before batch deletion."))
                continue
            }
            try await admin.adminDelete(app: project.app, id: id, by: actor)
        }
        return refused
    }

    /// `accounts:batchCreate`: each user written alone (one refused does not stop the others);
    /// the refusals, by index.
    func batchCreate(_ users: [EJSON], importing: FirebaseImport, project: FirebaseProjects.Project, by actor: AdminActor) async throws -> [(
        index: Int, message: String
    )] {
        var refused: [(Int, String)] = []
        var imported = 0
        for (index, item) in users.enumerated() {
            do {
                try await importOne(try importing.user(item), app: project.app)
                imported += 1
            } catch let error as FirebaseImport.Refused {
                refused.append((index, error.message))
            } catch let error as FirebaseError {
                refused.append((index, Self.importMessage(error.message)))
            }
        }
        await admin.adminRecord("users_imported", app: project.app, user: nil, by: actor, detail: "firebase: \(imported) of \(users.count)")
        return refused
    }

    /// `authsh admin import --from firebase`'s batch (``AdminFirebaseImportController``): the
    /// users of a `firebase auth:export` file with authsh's answer: a user whose id the app has
    /// is skipped (an import run twice changes nothing), any other refusal is reported by index.
    /// Each user is checked alone, then those that pass are written in one transaction (one
    /// per user only if the database changed meanwhile). With `check`, nothing is written.
    func importExport(_ users: [EJSON], importing: FirebaseImport, app: AppRuntime, check: Bool, by actor: AdminActor) async throws
        -> (imported: Int, skipped: Int, refused: [(index: Int, message: String)])
    {
        var skipped = 0
        var refused: [(Int, String)] = []
        var passing: [PortableUser] = []
        // What the batch's earlier users take: a later one may not take it again.
        var ids = Set<String>(), emails = Set<String>(), identities = Set<String>()
        for (index, item) in users.enumerated() {
            do {
                let portable = try importing.user(item)
                try await checkOne(portable, app: app)
                let taken = portable.user.identities.map { $0.providerType + "\u{0}" + $0.externalId }
                guard !ids.contains(portable.user.id) else { throw FirebaseError.invalid("DUPLICATE_LOCAL_ID") }
                guard portable.accounts.allSatisfy({ !emails.contains($0.email) }) else { throw FirebaseError.invalid("EMAIL_EXISTS") }
                guard taken.allSatisfy({ !identities.contains($0) }) else { throw FirebaseError.invalid("DUPLICATE_RAW_ID") }
                ids.insert(portable.user.id)
                emails.formUnion(portable.accounts.map(\.email))
                identities.formUnion(taken)
                passing.append(portable)
            } catch let error as FirebaseImport.Refused {
                refused.append((index, error.message))
            } catch let error as FirebaseError where error.message.hasPrefix("DUPLICATE_LOCAL_ID") {
                skipped += 1
            } catch let error as FirebaseError {
                refused.append((index, Self.importMessage(error.message)))
            }
        }
        guard !check else { return (passing.count, skipped, refused) }
        var imported = 0
        do {
            let counts = try await store.importUsers(passing, looseAccounts: [])
            imported = counts.imported
            skipped += counts.skipped
        } catch let error as StoreError where error.isConflict {
            // The database changed since the checks: each user alone, as batchCreate writes them.
            for portable in passing {
                do {
                    try await importOne(portable, app: app)
                    imported += 1
                } catch let error as FirebaseError where error.message.hasPrefix("DUPLICATE_LOCAL_ID") {
                    skipped += 1
                } catch let error as FirebaseError {
                    let index = users.firstIndex { $0["localId"]?.stringValue == portable.user.id } ?? -1
                    refused.append((index, Self.importMessage(error.message)))
                }
            }
        }
        await admin.adminRecord("users_imported", app: app, user: nil, by: actor, detail: "firebase export: \(imported) of \(users.count)")
        return (imported, skipped, refused.sorted { $0.0 < $1.0 })
    }

    /// What an import of `portable` would be refused for, read before anything is written: its
    /// id, an email, a phone number or another identity the app's users hold.
    private func checkOne(_ portable: PortableUser, app: AppRuntime) async throws {
        if try await store.user(id: portable.user.id, app: app.id) != nil { throw FirebaseError.invalid("DUPLICATE_LOCAL_ID") }
        for account in portable.accounts where try await store.userpassAccount(app: app.id, email: account.email) != nil {
            throw FirebaseError.invalid("EMAIL_EXISTS")
        }
        for identity in portable.user.identities where identity.providerType != ProviderType.userpass {
            if try await store.userId(app: app.id, providerType: identity.providerType, externalId: identity.externalId) != nil {
                throw identity.providerType == ProviderType.phone
                    ? FirebaseError.invalid("PHONE_NUMBER_EXISTS")
                    : FirebaseError.invalid("DUPLICATE_RAW_ID", "an identity of the user is another user's")
            }
        }
    }

    /// Firebase's words for an import's refusal.
    static func importMessage(_ message: String) -> String {
        switch message {
        case let m where m.hasPrefix("DUPLICATE_LOCAL_ID"): "localId belongs to an existing account - can not overwrite."
        case "EMAIL_EXISTS": "email exists in other account in database"
        case let m where m.hasPrefix("DUPLICATE_RAW_ID"): "raw id exists in other account in database"
        default: message
        }
    }
}
