// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import AuthServer
import CommandSupport
import Glibc

extension Admin.Command {
    /// `import --from keycloak|supabase|auth0|cognito`: the export read into authsh's lines
    /// (``ForeignExportImport``), then imported as an authsh export is. Refusals are named by
    /// the user's position in the export (from 0); a refused user imports nothing unless
    /// `--continue-on-error`, as a rejected line of authsh's own import.
    func importForeign(
        _ client: AdminClient, _ o: Admin.Options, _ format: ForeignExport, path: String, passwords: String?, check: Bool
    ) async throws {
        let progress = TransferProgress()
        let converted = try ForeignExportImport.convert(
            format, path: path, passwords: passwords, now: Int64(time(nil)), progress: { progress.show($0) })
        defer { unlink(converted.path) }
        var rejected = converted.refused
        var imported = 0, skipped = 0
        // A user refused while reading: the rest is only checked, unless --continue-on-error.
        let dryRun = check || (!rejected.isEmpty && !o.continueOnError)
        do {
            let report = try await client.importFile(converted.path, continueOnError: o.continueOnError, check: dryRun) {
                progress.show($0)
            }
            imported = Int(report["imported"]?.integerValue ?? 0)
            skipped = Int(report["skipped"]?.integerValue ?? 0)
            rejected += Self.rejections(report["rejected"], users: converted.users)
        } catch let error as AuthClientError where !error.details.isEmpty {
            rejected += Self.rejections(EJSON.document(error.details)["rejected"], users: converted.users)
        }
        progress.finish()
        rejected.sort { $0.user < $1.user }
        let wrote = !check && (rejected.isEmpty || o.continueOnError)
        if !wrote && !check { imported = 0 }
        if o.json {
            func list(_ items: [(user: Int, reason: String)]) -> EJSON {
                .array(items.map { ["user": .int64(Int64($0.user)), "reason": .string($0.reason)] })
            }
            print(
                AdminOutput.json([
                    "read": .int64(Int64(converted.read)), "imported": .int64(Int64(imported)), "skipped": .int64(Int64(skipped)),
                    "checked": .bool(check), "rejected": list(rejected), "leftOut": list(converted.leftOut),
                ]))
        } else {
            print(
                "\(check ? "would import" : "imported") \(imported), skipped \(skipped) (there already), rejected \(rejected.count)"
                    + ", left out \(converted.leftOut.count)"
                    + (wrote || check ? "" : " (nothing written: a user was rejected, see --continue-on-error)"))
            for r in rejected.prefix(100) { print("  user \(r.user): \(TerminalText.safe(r.reason))") }
            for l in converted.leftOut.prefix(100) { print("  user \(l.user) left out: \(TerminalText.safe(l.reason))") }
        }
        if !rejected.isEmpty {
            throw AdminTarget.AdminError("\(rejected.count) user\(rejected.count == 1 ? "" : "s") rejected")
        }
    }

    /// The import's rejected lines (`{line, reason}`, from 1) as the export's users.
    private static func rejections(_ value: EJSON?, users: [Int]) -> [(user: Int, reason: String)] {
        (value?.arrayValue ?? []).map { r in
            let line = Int(r["line"]?.integerValue ?? 0)
            return (line >= 1 && line <= users.count ? users[line - 1] : -1, r["reason"]?.stringValue ?? "")
        }
    }
}
