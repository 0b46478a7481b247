// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// Export and import of an app's users, as NDJSON (``TransferLine``):
///
/// - GET `export`: every user, then every account without a user, then an end line; streamed
///   a page of 1,000 at a time, so memory stays flat whatever the number of users.
/// - POST `import[?continueOnError=true]`: the body is spooled to a private temporary file,
///   every line is checked (shape, repeats, the database) before any is written, then the
///   lines are written 1,000 to a transaction. With a rejected line nothing is written (400,
///   naming the lines), unless `continueOnError`: then the others are, and the answer lists
///   the rejected ones. Users whose id the app has, and accounts whose email it has, are
///   skipped: importing twice changes nothing.
extension AdminService {
    /// The largest import accepted.
    static let importLimit = 8 << 30
    /// The longest line of an import.
    static let importLineLimit = 1 << 20
    static let transferBatch = 1000
    /// How many rejected lines an answer lists (it counts them all).
    static let rejectedListed = 1000

    struct ImportReport {
        var counts = ImportCounts()
        var rejected: [(Int, String)] = []
        var rejectedCount = 0

        var summary: String { "\(counts.imported) imported, \(counts.skipped) skipped, \(rejectedCount) rejected" }

        /// The answer: counts and the rejected lines; a failed import's is an error body too.
        func json(failed: Bool) -> EJSON {
            var body: EJSONDocument = [
                "imported": .int64(Int64(failed ? 0 : counts.imported)), "skipped": .int64(Int64(counts.skipped)),
                "rejectedCount": .int64(Int64(rejectedCount)),
                "rejected": .array(rejected.map { line, reason in ["line": .int64(Int64(line)), "reason": .string(reason)] }),
            ]
            if failed {
                body["error"] = .string(
                    "\(rejectedCount) line\(rejectedCount == 1 ? "" : "s") rejected; nothing was imported (continueOnError=true imports the others)")
                body["error_code"] = .string(ServiceErrorCode.invalidParameter.rawValue)
            }
            return .document(body)
        }
    }

    /// Checks every line of `spool`, then (with none rejected, or `continueOnError`) writes the
    /// others; `progress` hears the phase and the bytes of the file done.
    func importSpooled(
        _ spool: SpooledFile, app: AppRuntime, continueOnError: Bool, check: Bool = false,
        progress: (String, Int) -> Void = { _, _ in }
    ) async throws -> ImportReport {
        var report = ImportReport()
        var checker = ImportCheck(store: store, app: app.id)
        var toWrite = 0
        // The lines to write, a bit each.
        var write = LineSet()
        let providerId = { (type: String) in app.providerId(type) }
        let now = clock.now
        try await spool.eachLine(maxLine: Self.importLineLimit, read: { progress("check", $0) }) { number, bytes in
            func reject(_ reason: String) {
                report.rejectedCount += 1
                if report.rejected.count < Self.rejectedListed { report.rejected.append((number, reason)) }
            }
            guard let bytes else { return reject("longer than \(Self.importLineLimit >> 20) MiB") }
            if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return }
            do {
                let parsed = try TransferLine.parse(bytes, app: app.id, now: now, providerId: providerId)
                switch try await checker.check(parsed) {
                case .write:
                    write.insert(number)
                    toWrite += 1
                case .skip: report.counts.skipped += 1
                case .ignore: break
                }
            } catch let invalid as TransferLine.Invalid {
                reject(invalid.reason)
            }
        }
        // A check (`--check`): what would be written, and nothing is.
        if check {
            report.counts.imported = toWrite
            return report
        }
        guard report.rejectedCount == 0 || continueOnError else { return report }
        var users: [PortableUser] = [], accounts: [UserpassAccount] = []
        func flush() async throws {
            guard !users.isEmpty || !accounts.isEmpty else { return }
            do {
                let counts = try await store.importUsers(users, looseAccounts: accounts)
                report.counts.imported += counts.imported
                report.counts.skipped += counts.skipped
            } catch let e as StoreError where e.isConflict {
                throw ServiceError(
                    .accountNameInUse,
                    "the database changed during the import (an identity or email was taken since it was checked); \(report.counts.imported) were imported before that"
                )
            }
            users.removeAll(keepingCapacity: true)
            accounts.removeAll(keepingCapacity: true)
        }
        try await spool.eachLine(maxLine: Self.importLineLimit, read: { progress("write", $0) }) { number, bytes in
            guard write.contains(number), let bytes, case let parsed? = try? TransferLine.parse(bytes, app: app.id, now: now, providerId: providerId)
            else { return }
            switch parsed {
            case .user(let u): users.append(u)
            case .account(let a): accounts.append(a)
            case .end: break
            }
            if users.count + accounts.count >= Self.transferBatch { try await flush() }
        }
        try await flush()
        return report
    }
}

extension HTTPField.Name {
    /// How many users an export holds (as it started): `X-Export-Users`.
    static let exportUsers = HTTPField.Name("X-Export-Users")!
}

/// A set of line numbers, a bit per line: an import of a million lines notes which to write
/// in 125 KB.
struct LineSet {
    private var words: [UInt64] = []

    mutating func insert(_ line: Int) {
        let (word, bit) = line.quotientAndRemainder(dividingBy: 64)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        words[word] |= 1 << UInt64(bit)
    }

    func contains(_ line: Int) -> Bool {
        let (word, bit) = line.quotientAndRemainder(dividingBy: 64)
        return word < words.count && words[word] & (1 << UInt64(bit)) != 0
    }
}
