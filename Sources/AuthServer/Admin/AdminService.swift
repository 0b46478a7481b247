// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird
import Logging

/// Who made an admin change, for the audit log: the key's name (`admin:NAME`), from where.
struct AdminActor: Sendable {
    var keyName: String
    var address: String
    var userAgent: String?

    init(keyName: String, address: String, userAgent: String?) {
        self.keyName = keyName
        self.address = address
        self.userAgent = AuditEvent.userAgent(userAgent)
    }

    /// The actor of an API request (its key checked by ``AdminAuthMiddleware``), or of a
    /// request made with the key named `keyName`.
    init(_ request: Request, _ context: AuthRequestContext, keyName: String? = nil) {
        self.init(keyName: keyName ?? context.adminKeyName ?? "?", address: context.clientAddress, userAgent: request.headers[.userAgent])
    }
}

/// The admin changes, each with its audit entry: the API and the admin page both make them here.
struct AdminService {
    let store: any AuthStore
    let clock: ServerClock
    let logger: Logger
    let apps: [String: AppRuntime]
    /// Where auth events are written (nil with `auditLog: false`): refused admin requests go here.
    let auditWriter: AuditWriter?
    /// Where admin changes and sign-ins are written: always, whatever `auditLog` says (few,
    /// and each one a privileged act someone will want to account for).
    let adminAuditWriter: AuditWriter
    /// Refused admin requests recorded per address (``adminRefused(app:from:code:)``).
    let adminRefusals = AuditFailureBudget(perMinute: 120)
    /// Sends the reset mails an admin asks for.
    let userpass: UserpassService
    /// Runs the `DELETE` triggers a deletion queues.
    let triggers: TriggerRunner

    static let noSuchUser = ServiceError(.userNotFound, "no user with that id in this app")

    /// The app and user the path names, or 404.
    func target(_ context: AuthRequestContext) async throws -> (AppRuntime, AdminUserRecord) {
        let app = try context.app
        guard let found = try await store.adminUser(id: AdminController.userId(context), app: app.id) else { throw Self.noSuchUser }
        return (app, found)
    }

    /// The email of the user's email/password account, if it has one.
    static func userpassEmail(of user: UserRecord) -> String? {
        guard let identity = user.identities.first(where: { $0.providerType == ProviderType.userpass }) else { return nil }
        return identity.email ?? identity.data["email"]?.stringValue ?? user.data["email"]?.stringValue
    }

    /// Records an admin action of an API request.
    func audit(
        _ event: String, app: AppRuntime, user: String?, _ request: Request, _ context: AuthRequestContext,
        detail: String? = nil
    ) async {
        await adminRecord(event, app: app, user: user, by: AdminActor(request, context), detail: detail)
    }

    func adminSetDisabled(_ disabled: Bool, app: AppRuntime, id: String, by actor: AdminActor) async throws {
        guard try await store.setUserDisabled(disabled, id: id, app: app.id) else { throw Self.noSuchUser }
        await adminRecord(disabled ? "user_disabled" : "user_enabled", app: app, user: id, by: actor)
    }

    func adminDelete(app: AppRuntime, id: String, by actor: AdminActor) async throws {
        guard let user = try await store.user(id: id, app: app.id) else { throw Self.noSuchUser }
        try await triggers.deleteUser(user, app: app)
        await adminRecord("user_deleted", app: app, user: id, by: actor)
    }

    /// Ends every session of the user; returns how many.
    func adminRevokeSessions(app: AppRuntime, id: String, by actor: AdminActor) async throws -> Int {
        // No entry in the audit log for a user that is not there (the page posts any id).
        guard try await store.user(id: id, app: app.id) != nil else { throw Self.noSuchUser }
        let revoked = try await store.deleteSessions(userId: id, app: app.id, except: "")
        await adminRecord("session_revoked", app: app, user: id, by: actor, detail: "all: \(revoked)")
        return revoked
    }

    /// The user's second factors (``SecondFactorService/describe(_:)``).
    func adminSecondFactors(app: AppRuntime, id: String) async throws -> EJSON {
        guard try await store.user(id: id, app: app.id) != nil else { throw Self.noSuchUser }
        return SecondFactorService.describe(try await store.secondFactors(userId: id))
    }

    /// Removes the user's TOTP factor and recovery codes: for a person who lost their
    /// authenticator and their codes, once the administrator knows who they are.
    func adminRemoveTOTP(app: AppRuntime, id: String, by actor: AdminActor) async throws {
        guard try await store.user(id: id, app: app.id) != nil else { throw Self.noSuchUser }
        guard try await store.deleteTOTP(userId: id) else {
            throw ServiceError(.mfaFactorNotFound, "this user has no TOTP factor")
        }
        await adminRecord("totp_removed", app: app, user: id, by: actor)
    }

    func adminRemovePhoneFactor(app: AppRuntime, id: String, enrollmentId: String, by actor: AdminActor) async throws {
        guard try await store.user(id: id, app: app.id) != nil else { throw Self.noSuchUser }
        guard try await store.deletePhoneFactor(userId: id, enrollmentId: enrollmentId) else {
            throw ServiceError(.mfaFactorNotFound, "this user has no such phone factor")
        }
        await adminRecord("phone_factor_removed", app: app, user: id, by: actor)
    }

    func adminRevokeSession(app: AppRuntime, id: String, session: String, by actor: AdminActor) async throws {
        guard try await store.deleteSession(id: session, userId: id, app: app.id) else {
            throw ServiceError(.sessionNotFound, "the user has no such session")
        }
        await adminRecord("session_revoked", app: app, user: id, by: actor)
    }

    /// Sets the user's custom data from `body` (a JSON object, or null to remove it); returns
    /// the user as it is now.
    func adminSetCustomData(_ body: EJSON, app: AppRuntime, user found: AdminUserRecord, by actor: AdminActor) async throws -> AdminUserRecord {
        let data: EJSONDocument?
        switch body {
        case .document(let d):
            if let problem = CustomDataLimits.problem(d) { throw ServiceError(.invalidParameter, problem) }
            data = d
        case .null: data = nil
        default: throw ServiceError(.invalidParameter, "custom data must be a JSON object, or null to remove it")
        }
        guard try await store.setCustomData(data, userId: found.user.id, app: app.id),
            let changed = try await store.adminUser(id: found.user.id, app: app.id)
        else { throw Self.noSuchUser }
        await adminRecord("custom_data_set", app: app, user: found.user.id, by: actor)
        return changed
    }

    /// Sends the reset mail of the user's email/password account (not when a reset function
    /// is configured: resets then go through it).
    func adminSendReset(app: AppRuntime, user found: AdminUserRecord, by actor: AdminActor) async throws {
        guard let email = Self.userpassEmail(of: found.user) else {
            throw ServiceError(.userNotFound, "the user has no email/password identity")
        }
        guard try userpass.userpassConfig(app).runResetFunction == false else {
            throw ServiceError(.badRequest, "a reset function is configured: resets go through it")
        }
        try await userpass.sendLink(.reset, app: app, email: email, origin: nil)
        await adminRecord("reset_requested", app: app, user: found.user.id, by: actor)
    }

    /// Confirms the pending email/password account of `email`; returns the account's email.
    func adminConfirm(email: String, app: AppRuntime, by actor: AdminActor) async throws -> String {
        guard let account = try await store.userpassAccount(app: app.id, email: email) else {
            throw ServiceError(.userNotFound, "no email/password account with that email")
        }
        if !account.confirmed { try await store.confirmUserpassAccount(app: app.id, email: account.email) }
        await adminRecord("confirm", app: app, user: nil, by: actor, detail: account.confirmed ? "already confirmed" : nil)
        return account.email
    }

    /// Records a request the admin API or page refused (`admin_refused`, with its error code),
    /// up to 120 a minute per address, so that guessing at keys shows in the audit log.
    func adminRefused(app: AppRuntime, from actor: AdminActor, code: String) async {
        // Refusals come from anyone, like failed logins: kept with the auth events (auditLog).
        guard let auditWriter, adminRefusals.take(actor.address, now: clock.now) else { return }
        await write(
            AuditEvent(
                time: clock.now, appId: app.id, event: "admin_refused", outcome: "failure", userId: nil,
                address: actor.address, userAgent: actor.userAgent, detail: code), to: auditWriter)
    }

    /// Records an admin action: the key's name as the actor, with its address and agent.
    func adminRecord(_ event: String, app: AppRuntime, user: String?, by actor: AdminActor, detail: String? = nil) async {
        await write(
            AuditEvent(
                time: clock.now, appId: app.id, event: event, outcome: "success", userId: user, address: actor.address,
                userAgent: actor.userAgent, detail: detail, actor: "admin:\(actor.keyName)"), to: adminAuditWriter)
    }

    /// Writes `entry`; a failure is logged, never the caller's (the change it records is made).
    private func write(_ entry: AuditEvent, to writer: AuditWriter) async {
        do {
            try await writer.write([entry])
        } catch {
            logger.error("audit log unavailable", metadata: ["error": "\(error)", "event": "\(entry.event)"])
        }
    }
}
