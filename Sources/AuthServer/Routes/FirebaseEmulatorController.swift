// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// The Auth emulator's own routes that test suites call between tests, in dev mode only and
/// behind the dev API's guard: `DELETE /emulator/v1/projects/PROJECT/accounts` deletes every
/// user of the project's app (the dev API's `DELETE .../users`); `GET .../oobCodes` lists the
/// action codes of the mails in the dev outbox.
struct FirebaseEmulatorController {
    let projects: FirebaseProjects
    /// Wipes an app's users.
    let store: any AuthStore
    /// The mails sent.
    let outbox: DevOutbox
    let origin: PublicOrigin

    func addRoutes(to router: Router<AuthRequestContext>) {
        let group = router.group("/emulator/v1/projects/:project")
            .add(middleware: DevRequestGuard(listenHost: origin.listenHost, publicURL: origin.publicURL))
        group.delete("accounts", use: deleteAccounts)
        group.get("oobCodes", use: oobCodes)
    }

    /// `{"oobCodes": [{email, oobCode, oobLink, requestType}]}`: the reset, verification and
    /// sign-in mails of the project's app, oldest first (an App Services mail's token is a code too).
    @Sendable func oobCodes(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let project = projects.project(id: context.parameters.get("project") ?? "") else {
            return FirebaseError(404, "PROJECT_NOT_FOUND", status: "NOT_FOUND", reason: "notFound").response
        }
        let codes: [EJSON] = outbox.messages(app: project.app.id).compactMap { message in
            let type: FirebaseActions.RequestType
            switch message.kind {
            case OneTimeToken.Kind.reset.rawValue: type = .passwordReset
            case OneTimeToken.Kind.confirm.rawValue: type = .verifyEmail
            case OneTimeToken.Kind.signIn.rawValue: type = .emailSignIn
            default: return nil
            }
            return [
                "email": .string(message.to), "oobCode": .string(FirebaseActions.code(token: message.token, tokenId: message.tokenId)),
                "oobLink": .string(message.link), "requestType": .string(type.rawValue),
            ]
        }
        return JSONResponse.make(["oobCodes": .array(codes)], mode: .relaxed)
    }

    @Sendable func deleteAccounts(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let project = projects.project(id: context.parameters.get("project") ?? "") else {
            return FirebaseError(404, "PROJECT_NOT_FOUND", status: "NOT_FOUND", reason: "notFound").response
        }
        try await store.wipe(app: project.app.id)
        return JSONResponse.make([:], mode: .relaxed)
    }
}
