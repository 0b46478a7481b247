// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The admin API's export and import of an app's users, as NDJSON (see `AdminTransfer.swift`
/// for the format and the rules).
struct AdminTransferController {
    let admin: AdminService

    /// Adds the routes to `group` (the app's group of the admin API).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("export", use: export)
        group.post("import", use: importUsers)
    }

    /// Every user, then every account without a user, then an end line, a page at a time.
    @Sendable func export(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        await admin.audit("users_exported", app: app, user: nil, request, context)
        let store = admin.store, batch = AdminService.transferBatch
        // For a progress bar: the users there are as the export starts.
        let total = try await store.countUsers(app: app.id)
        let body = ResponseBody { writer in
            var cursor: String?
            var users = 0, accounts = 0
            repeat {
                let page = try await store.exportUsers(app: app.id, after: cursor, limit: batch)
                var buffer = ByteBuffer()
                for user in page { buffer.writeBytes(TransferLine.line(user)) }
                users += page.count
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                cursor = page.count == batch ? page.last?.user.id : nil
            } while cursor != nil
            repeat {
                let page = try await store.exportLooseAccounts(app: app.id, after: cursor, limit: batch)
                var buffer = ByteBuffer()
                for account in page { buffer.writeBytes(TransferLine.line(account: account)) }
                accounts += page.count
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                cursor = page.count == batch ? page.last?.email : nil
            } while cursor != nil
            try await writer.write(ByteBuffer(bytes: TransferLine.end(users: users, accounts: accounts)))
            try await writer.finish(nil)
        }
        var headers: HTTPFields = [.contentType: "application/x-ndjson"]
        headers[.exportUsers] = String(total)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The import: checked whole, then written (`?continueOnError=true`, `?progress=true`).
    @Sendable func importUsers(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let continueOnError = request.uri.queryParameters.get("continueOnError") == "true"
        let streamed = request.uri.queryParameters.get("progress") == "true"
        // `check=true`: every line checked, nothing written; `imported` counts what would be.
        let check = request.uri.queryParameters.get("check") == "true"
        let spool = try await SpooledFile(request.body, limit: AdminService.importLimit)
        guard streamed else {
            let report = try await admin.importSpooled(spool, app: app, continueOnError: continueOnError, check: check)
            if !check { await admin.audit("users_imported", app: app, user: nil, request, context, detail: report.summary) }
            guard report.rejectedCount == 0 || continueOnError || check else {
                return AdminRoutes.json(report.json(failed: true), status: .badRequest)
            }
            return AdminRoutes.json(report.json(failed: false))
        }
        // `progress=true`: NDJSON, `{"phase": "check" or "write", "bytes": N, "of": SIZE}` at
        // most every half second, then `{"report": {...}}` (with `error` when it failed).
        let body = ResponseBody { writer in
            let (lines, continuation) = AsyncStream<[UInt8]>.makeStream()
            let size = spool.size
            let work = Task {
                defer { continuation.finish() }
                var last = ContinuousClock.now
                do {
                    let report = try await admin.importSpooled(spool, app: app, continueOnError: continueOnError, check: check) {
                        phase, bytes in
                        let now = ContinuousClock.now
                        guard now - last >= .milliseconds(500) else { return }
                        last = now
                        continuation.yield(
                            EJSON.document([
                                "phase": .string(phase), "bytes": .int64(Int64(bytes)),
                                "of": .int64(Int64(size)),
                            ]).encoded(.relaxed) + [10])
                    }
                    if !check { await admin.audit("users_imported", app: app, user: nil, request, context, detail: report.summary) }
                    let failed = report.rejectedCount > 0 && !continueOnError && !check
                    continuation.yield(EJSON.document(["report": report.json(failed: failed)]).encoded(.relaxed) + [10])
                } catch {
                    let e = error as? ServiceError ?? ServiceError(.internalServerError, "the import failed")
                    continuation.yield(
                        EJSON.document(["report": ["error": .string(e.message), "error_code": .string(e.code.rawValue)]])
                            .encoded(.relaxed) + [10])
                }
            }
            for await line in lines { try await writer.write(ByteBuffer(bytes: line)) }
            _ = await work.result
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: body)
    }
}
