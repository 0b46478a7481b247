// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The admin API's import of a Firebase project's users (`authsh admin import --from firebase`):
/// `POST import/firebase` with a batch of a `firebase auth:export` file's users (at most
/// 1,000) and the project's password hash parameters in the Admin API's `batchCreate` fields
/// (`hashAlgorithm`, `signerKey`, `saltSeparator`, `rounds`, `memoryCost`, ...: the command
/// reads them from the console's `hash_config` block). Answers `{imported, skipped, rejected:
/// [{index, reason}]}`; a user whose id the app has is skipped, so an import run twice changes
/// nothing. With `"check": true`, nothing is written: each user is read and checked as the
/// import would (`imported` counts those that would come in).
struct AdminFirebaseImportController {
    let firebase: FirebaseAdmin
    /// The most users one request takes.
    static let batchLimit = 1000

    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.post("import/firebase", use: importBatch)
    }

    @Sendable func importBatch(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        guard case .document(let body) = try await AdminRoutes.body(request, context) else {
            throw ServiceError(.badRequest, "the body must be a JSON object")
        }
        guard case .array(let users)? = body["users"], users.count <= Self.batchLimit else {
            throw ServiceError(.invalidParameter, "'users' must be an array of at most \(Self.batchLimit) users")
        }
        let importing: FirebaseImport
        do {
            importing = try FirebaseImport(body, app: app, now: firebase.clock.now)
        } catch {
            throw ServiceError(.invalidParameter, "the hash configuration: \(error.message)")
        }
        let check = body["check"]?.boolValue ?? false
        let done = try await firebase.importExport(users, importing: importing, app: app, check: check, by: AdminActor(request, context))
        return AdminRoutes.json([
            "imported": .int64(Int64(done.imported)), "skipped": .int64(Int64(done.skipped)), "checked": .bool(check),
            "rejected": .array(done.refused.map { ["index": .int64(Int64($0.index)), "reason": .string($0.message)] }),
        ])
    }
}
