// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// The Auth emulator's own routes that test suites call between tests, in dev mode only and
/// behind the dev API's guard: `DELETE /emulator/v1/projects/PROJECT/accounts` deletes every
/// user of the project's app (the dev API's `DELETE .../users`).
struct FirebaseEmulatorController {
    let projects: FirebaseProjects
    /// Wipes an app's users.
    let store: any AuthStore
    let origin: PublicOrigin

    func addRoutes(to router: Router<AuthRequestContext>) {
        let group = router.group("/emulator/v1/projects/:project")
            .add(middleware: DevRequestGuard(listenHost: origin.listenHost, publicURL: origin.publicURL))
        group.delete("accounts", use: deleteAccounts)
    }

    @Sendable func deleteAccounts(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let project = projects.project(id: context.parameters.get("project") ?? "") else {
            return FirebaseController.error(FirebaseError(404, "PROJECT_NOT_FOUND", status: "NOT_FOUND", reason: "notFound"))
        }
        try await store.wipe(app: project.app.id)
        return JSONResponse.make([:], mode: .relaxed)
    }
}
