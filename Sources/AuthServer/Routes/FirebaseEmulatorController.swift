// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// The Auth emulator's own routes that test suites call between tests, in dev mode only and
/// behind the dev API's guard: `DELETE /emulator/v1/projects/PROJECT/accounts` deletes every
/// user of the project's app (the dev API's `DELETE .../users`); `GET .../oobCodes` lists the
/// action codes of the mails in the dev outbox, `GET .../verificationCodes` the codes texted; `GET` and `PATCH .../config` read and change
/// the two settings of the emulator's that are the app's (`signIn.allowDuplicateEmails`, the
/// opposite of `oneAccountPerEmail`; `emailPrivacyConfig.enableImprovedEmailPrivacy`,
/// `emailEnumerationProtection`), through the dev API's config change.
struct FirebaseEmulatorController {
    let projects: FirebaseProjects
    /// Wipes an app's users.
    let store: any AuthStore
    /// The mails sent.
    let outbox: DevOutbox
    /// Changes an app's config.
    let dev: DevOperations
    let origin: PublicOrigin

    func addRoutes(to router: Router<AuthRequestContext>) {
        let group = router.group("/emulator/v1/projects/:project")
            .add(middleware: DevRequestGuard(listenHost: origin.listenHost, publicURL: origin.publicURL))
        group.delete("accounts", use: deleteAccounts)
        group.get("oobCodes", use: oobCodes)
        group.get("verificationCodes", use: verificationCodes)
        group.get("config", use: config)
        group.patch("config", use: patchConfig)
    }

    /// The project's app, or Firebase's 404.
    private func project(_ context: AuthRequestContext) throws(FirebaseError) -> FirebaseProjects.Project {
        try projects.named(context.parameters.get("project"))
    }

    /// The emulator's config as the app's settings say it.
    static func config(_ app: AppConfiguration) -> EJSONDocument {
        [
            "signIn": ["allowDuplicateEmails": .bool(!app.oneAccountPerEmail)],
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(app.emailEnumerationProtection)],
            "usageMode": "DEFAULT",
        ]
    }

    @Sendable func config(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await FirebaseController.answering { Self.config(try project(context).app.config) }
    }

    /// `PATCH .../config`: the settings the body names, changed; the config after. Others of the
    /// emulator's (`blockingFunctions`, `usageMode: PASSTHROUGH`) are refused by name.
    @Sendable func patchConfig(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await FirebaseController.answering {
            let app = try project(context).app
            let body = try await InputFields.read(request, context: context).document
            var patch: EJSONDocument = [:]
            for (key, value) in body {
                switch (key, value) {
                case ("signIn", .document(let signIn)):
                    for (name, setting) in signIn {
                        guard name == "allowDuplicateEmails", case .bool(let allow) = setting else {
                            throw FirebaseError.invalid("INVALID_ARGUMENT", "signIn takes allowDuplicateEmails (true or false)")
                        }
                        patch["oneAccountPerEmail"] = .bool(!allow)
                    }
                case ("emailPrivacyConfig", .document(let privacy)):
                    for (name, setting) in privacy {
                        guard name == "enableImprovedEmailPrivacy", case .bool(let on) = setting else {
                            throw FirebaseError.invalid("INVALID_ARGUMENT", "emailPrivacyConfig takes enableImprovedEmailPrivacy (true or false)")
                        }
                        patch["emailEnumerationProtection"] = .bool(on)
                    }
                case ("usageMode", "DEFAULT"): break
                default:
                    throw FirebaseError.invalid(
                        "INVALID_ARGUMENT", "\(key) is not a setting authsh takes here: signIn.allowDuplicateEmails and emailPrivacyConfig are")
                }
            }
            if !patch.isEmpty {
                do {
                    _ = try await dev.patchConfig(app: app, patch: patch)
                } catch let error as ServiceError {
                    throw FirebaseError.invalid("INVALID_ARGUMENT", error.message)
                }
            }
            return Self.config(app.config)
        }
    }

    /// `{"oobCodes": [{email, oobCode, oobLink, requestType}]}`: the reset, verification,
    /// sign-in and email change mails of the project's app, oldest first (an App Services
    /// mail's token is a code too); `email` is the address mailed, except for an email change
    /// not done yet, listed as the emulator lists it: under the account's email, the address
    /// mailed in `newEmail`.
    @Sendable func oobCodes(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let project: FirebaseProjects.Project
        do { project = try self.project(context) } catch { return error.response }
        var codes: [EJSON] = []
        for message in outbox.messages(app: project.app.id) {
            guard let kind = OneTimeToken.Kind(rawValue: message.kind) else { continue }
            let type = FirebaseActions.RequestType(kind)
            var entry: EJSONDocument = [
                "email": .string(message.to), "oobCode": .string(FirebaseActions.code(token: message.token, tokenId: message.tokenId)),
                "oobLink": .string(message.link), "requestType": .string(type.rawValue),
            ]
            if kind == .changeEmail,
                let found = try await store.peekToken(
                    app: project.app.id, kind: kind, id: message.tokenId, digest: Secrets.digest(message.token), now: 0),
                let newEmail = found.newEmail
            {
                entry["email"] = .string(found.email)
                entry["newEmail"] = .string(newEmail)
            }
            codes.append(.document(entry))
        }
        return JSONResponse.make(["oobCodes": .array(codes)], mode: .relaxed)
    }

    /// `{"verificationCodes": [{phoneNumber, sessionInfo, code}]}`: the codes texted for the
    /// project's app, oldest first (test numbers get no text, so none of theirs).
    @Sendable func verificationCodes(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let project: FirebaseProjects.Project
        do { project = try self.project(context) } catch { return error.response }
        let codes: [EJSON] = outbox.messages(app: project.app.id, kind: PhoneCodes.outboxKind).map { message in
            ["phoneNumber": .string(message.to), "sessionInfo": .string(message.link), "code": .string(message.token)]
        }
        return JSONResponse.make(["verificationCodes": .array(codes)], mode: .relaxed)
    }

    @Sendable func deleteAccounts(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let project: FirebaseProjects.Project
        do { project = try self.project(context) } catch { return error.response }
        try await store.wipe(app: project.app.id)
        return JSONResponse.make([:], mode: .relaxed)
    }
}
