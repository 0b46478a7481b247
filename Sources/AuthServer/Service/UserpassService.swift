// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Lua
import LuaEJSON

/// Email/password accounts: register, confirm, reset (docs/protocol/wire-protocol.md section 6).
struct UserpassService {
    let store: any UserpassStore
    let clock: ServerClock
    let passwords: Passwords
    let abuse: AbuseControls
    let functions: PluginFunctions
    let mailer: any Mailer
    /// The mails' subjects and parts.
    let templates: MailTemplates

    /// Confirmation and reset links live 30 minutes.
    static let linkLifetime: Int64 = 1800
    /// Reset and confirmation tokens kept valid per email and kind (older ones are dropped).
    static let outstandingTokens = 5

    func userpassConfig(_ app: AppRuntime) throws(ServiceError) -> AppConfiguration.Userpass {
        guard let c = app.config.providers.userpass else {
            throw ServiceError(.authProviderNotFound, "authentication via 'local-userpass' is unsupported")
        }
        return c
    }

    /// `register`: a pending account, then confirmation by email (or at once with autoConfirm).
    /// With `emailEnumerationProtection`, a taken email answers as a new one would, and its
    /// owner is mailed instead (a notice, with no token).
    func register(app: AppRuntime, email: String, password: String, origin: String?, address: String) async throws {
        let config = try userpassConfig(app)
        try Emails.check(email)
        try Passwords.checkLength(password)
        try await abuse.checkRate(.register, app: app, address: address)
        let inUse = ServiceError(.accountNameInUse, "name already in use")
        if try await store.userpassAccount(app: app.id, email: email) != nil {
            guard app.config.emailEnumerationProtection else { throw inUse }
            _ = try await passwords.hasher.hash(password)  // the time a new account takes
            let notice = templates.render("notice", app: app.id, values: ["app": app.id, "email": email])
            try await mailer.send(
                OutboxMessage(
                    to: email, subject: notice.subject, body: notice.text, kind: "notice", token: "",
                    tokenId: "", link: "", sentAt: clock.now, html: notice.html), app: app.id)
            return
        }
        let hash = try await passwords.hasher.hash(password)
        let account = UserpassAccount(
            appId: app.id, email: email, passwordHash: hash,
            identityId: clock.newId(),
            confirmed: config.autoConfirm, createdAt: clock.now)
        try await storing(inUse) { try await store.insertUserpassAccount(account) }
        if config.autoConfirm { return }
        guard config.runConfirmationFunction, let name = config.confirmationFunctionName else {
            try await sendLink(.confirm, app: app, email: email, origin: origin)
            return
        }
        // The function decides; `fail` or an error leaves no account behind.
        do {
            try await runConfirmation(name, app: app, email: email)
        } catch {
            try await store.deleteUserpassAccount(app: app.id, email: email)
            throw error
        }
    }

    /// Runs the confirmation function with `{token, tokenId, username}`: `success` confirms,
    /// `pending` waits for `/confirm` with that token, `fail` is BadRequest.
    private func runConfirmation(_ name: String, app: AppRuntime, email: String) async throws {
        let (token, tokenId) = try await newToken(.confirm, app: app, email: email)
        let request = LuaTable([
            "token": .string(LuaString(token)), "tokenId": .string(LuaString(tokenId)),
            "username": .string(LuaString(email)),
        ])
        switch try await functions.runStatusFunction(name, app: app, arguments: [.table(request)], role: "confirmation") {
        case .success:
            _ = try await store.consumeToken(app: app.id, kind: .confirm, id: tokenId, digest: Secrets.digest(token), now: clock.now)
            try await store.confirmUserpassAccount(app: app.id, email: email)
        case .pending:
            return
        case .fail:
            throw ServiceError(.badRequest, "failed to confirm user \"\(email)\"")
        }
    }

    /// `confirm`: uses a confirmation token once.
    func confirm(app: AppRuntime, token: String, tokenId: String, address: String) async throws {
        try await abuse.checkRate(.token, app: app, address: address, account: tokenId)
        _ = try userpassConfig(app)
        guard
            let email = try await store.consumeToken(
                app: app.id, kind: .confirm, id: tokenId,
                digest: Secrets.digest(token), now: clock.now),
            let account = try await store.userpassAccount(app: app.id, email: email)
        else { throw ServiceError(.badRequest, "invalid token data") }
        guard !account.confirmed else { throw ServiceError(.userAlreadyConfirmed, "already confirmed") }
        try await store.confirmUserpassAccount(app: app.id, email: email)
    }

    /// `confirm/send`: a new confirmation email.
    func resendConfirmation(app: AppRuntime, email: String, origin: String?, address: String) async throws {
        try await abuse.checkRate(.mail, app: app, address: address, account: email.lowercased())
        _ = try userpassConfig(app)
        let protected = app.config.emailEnumerationProtection
        guard let account = try await account(app: app, email: email, orNilWhen: protected) else { return }
        guard !account.confirmed else {
            if protected { return }
            throw ServiceError(.userAlreadyConfirmed, "already confirmed")
        }
        try await sendLink(.confirm, app: app, email: email, origin: origin)
    }

    /// `confirm/call`: re-runs the confirmation function. With enumeration protection, an
    /// email with no account or a confirmed one answers as a pending confirmation does.
    func rerunConfirmation(app: AppRuntime, email: String, address: String) async throws {
        try await abuse.checkRate(.function, app: app, address: address, account: email.lowercased())
        let config = try userpassConfig(app)
        if config.autoConfirm { throw ServiceError(.badRequest, "automatic confirmation is enabled") }
        guard config.runConfirmationFunction, let name = config.confirmationFunctionName else {
            throw ServiceError(.badRequest, "no confirmation function is configured")
        }
        let protected = app.config.emailEnumerationProtection
        guard let account = try await account(app: app, email: email, orNilWhen: protected) else { return }
        guard !account.confirmed else {
            if protected { return }
            throw ServiceError(.userAlreadyConfirmed, "already confirmed")
        }
        try await runConfirmation(name, app: app, email: email)
    }

    /// `reset/send`: a reset email.
    func sendReset(app: AppRuntime, email: String, origin: String?, address: String) async throws {
        try await abuse.checkRate(.mail, app: app, address: address, account: email.lowercased())
        let config = try userpassConfig(app)
        if config.runResetFunction {
            throw ServiceError(.badRequest, "a reset function is configured: use reset/call")
        }
        guard try await account(app: app, email: email, orNilWhen: app.config.emailEnumerationProtection) != nil else { return }
        try await sendLink(.reset, app: app, email: email, origin: origin)
    }

    /// `reset`: sets the password with a reset token, once.
    func reset(app: AppRuntime, token: String, tokenId: String, password: String, address: String) async throws {
        try await abuse.checkRate(.token, app: app, address: address, account: tokenId)
        _ = try userpassConfig(app)
        try Passwords.checkLength(password)
        guard
            let email = try await store.consumeToken(
                app: app.id, kind: .reset, id: tokenId,
                digest: Secrets.digest(token), now: clock.now)
        else { throw ServiceError(.badRequest, "invalid token data") }
        let hash = try await passwords.hasher.hash(password)
        try await store.resetPassword(app: app.id, email: email, hash: hash)
    }

    /// `reset/call`: runs the reset function with `{username, password, token, tokenId,
    /// currentPasswordValid}` and the client's `arguments` spread after it. `success` sets the
    /// password now, `pending` waits for `/reset` with that token, `fail` is BadRequest.
    func callReset(app: AppRuntime, email: String, password: String, arguments: [EJSON], address: String) async throws {
        try await abuse.checkRate(.function, app: app, address: address, account: email.lowercased())
        let config = try userpassConfig(app)
        try Passwords.checkLength(password)
        let failed = ServiceError(.badRequest, "failed to reset password for user \"\(email)\"")
        guard config.runResetFunction, let name = config.resetFunctionName else {
            throw ServiceError(.badRequest, "no reset function is configured")
        }
        guard let account = try await account(app: app, email: email, orNilWhen: app.config.emailEnumerationProtection) else {
            // As a reset function's `fail` answers, after the time a password check takes.
            try await passwords.spendCheckTime(password)
            throw failed
        }
        let currentPasswordValid = try await passwords.hasher.verify(password, against: account.passwordHash)
        let (token, tokenId) = try await newToken(.reset, app: app, email: email)
        let request = LuaTable([
            "username": .string(LuaString(email)), "password": .string(LuaString(password)),
            "token": .string(LuaString(token)), "tokenId": .string(LuaString(tokenId)),
            "currentPasswordValid": .boolean(currentPasswordValid),
        ])
        let status = try await functions.runStatusFunction(
            name, app: app, arguments: [.table(request)] + arguments.map(LuaEJSON.lua),
            role: "reset")
        switch status {
        case .success:
            _ = try await store.consumeToken(app: app.id, kind: .reset, id: tokenId, digest: Secrets.digest(token), now: clock.now)
            try await store.resetPassword(app: app.id, email: email, hash: try await passwords.hasher.hash(password))
        case .pending:
            return
        case .fail:
            // Only this attempt's token: a failed attempt must not cancel a reset on its way.
            try await store.discardToken(app: app.id, id: tokenId)
            throw failed
        }
    }

    /// The account of `email`; when there is none, nil if `quiet` (enumeration protection),
    /// else `UserNotFound`.
    private func account(app: AppRuntime, email: String, orNilWhen quiet: Bool) async throws -> UserpassAccount? {
        try Emails.check(email)
        if let account = try await store.userpassAccount(app: app.id, email: email) { return account }
        if quiet { return nil }
        throw ServiceError(.userNotFound, "user not found")
    }

    /// A new confirmation or reset token (32 random bytes, stored as a digest, 30 minutes),
    /// not stored yet. The email's earlier tokens of that kind stay valid (the newest few)
    /// until one is used.
    func makeToken(_ kind: OneTimeToken.Kind, app: AppRuntime, email: String, newEmail: String? = nil) -> (token: String, record: OneTimeToken) {
        let token = Secrets.randomHex(bytes: 32)
        return (
            token,
            OneTimeToken(
                id: clock.newId(), appId: app.id, kind: kind, email: email, digest: Secrets.digest(token),
                expiresAt: clock.now + Self.linkLifetime, newEmail: newEmail)
        )
    }

    /// A new token, stored (for a plugin to use: no mail carries it).
    func newToken(_ kind: OneTimeToken.Kind, app: AppRuntime, email: String, newEmail: String? = nil) async throws
        -> (token: String, tokenId: String)
    {
        let (token, record) = makeToken(kind, app: app, email: email, newEmail: newEmail)
        try await store.insertToken(record, now: clock.now, keep: Self.outstandingTokens)
        return (token, record.id)
    }

    /// Creates a token, and stores its digest with the mail of `URL?token=..&tokenId=..`, or of
    /// the link `makeLink` makes of the token and its id (Firebase's action links). The mail
    /// goes to `email`, but for an email change's (`changeemail`): to `newEmail`, the address it
    /// proves.
    func sendLink(
        _ kind: OneTimeToken.Kind, app: AppRuntime, email: String, newEmail: String? = nil, origin: String?,
        link makeLink: (@Sendable (_ token: String, _ tokenId: String) -> String)? = nil
    ) async throws {
        let config = try userpassConfig(app)
        let (token, record) = makeToken(kind, app: app, email: email, newEmail: newEmail)
        let tokenId = record.id
        let base =
            (kind == .confirm ? config.emailConfirmationUrl : config.resetPasswordUrl)
            ?? origin.map { "\($0)/\(kind == .confirm ? "confirm" : "reset")" }
        let link =
            makeLink?(token, tokenId) ?? base.map { "\($0)\($0.contains("?") ? "&" : "?")token=\(token)&tokenId=\(tokenId)" } ?? ""
        let subject =
            switch kind {
            case .confirm: config.confirmEmailSubject
            case .reset: config.resetPasswordSubject
            case .signIn: "Sign in to \(app.id)"
            case .changeEmail: "Confirm your new email for \(app.id)"
            case .recoverEmail: "Your email for \(app.id) was changed"
            }
        var values = [
            "app": app.id, "email": email, "token": token, "tokenId": tokenId, "minutes": String(Self.linkLifetime / 60),
            "subject": subject,
        ]
        if let newEmail { values["newEmail"] = newEmail }
        if !link.isEmpty { values["link"] = link }
        let mail = templates.render(kind.rawValue, app: app.id, values: values)
        // The token and the mail that carries it are stored in one transaction.
        try await mailer.send(
            OutboxMessage(
                to: kind == .changeEmail ? newEmail ?? email : email, subject: mail.subject, body: mail.text, kind: kind.rawValue,
                token: token, tokenId: tokenId, link: link, sentAt: clock.now, html: mail.html),
            app: app.id, storing: record, now: clock.now, keep: Self.outstandingTokens)
    }
}
