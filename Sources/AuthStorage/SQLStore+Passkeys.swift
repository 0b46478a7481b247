// SPDX-License-Identifier: Apache-2.0
/// Passkeys: a user's WebAuthn credentials. A use is one conditional statement on the counter,
/// so an assertion from a cloned authenticator (a counter that does not grow) is refused on
/// every instance.
extension SQLStore {
    public func insertPasskey(_ passkey: PasskeyRecord, limit: Int) async throws -> Bool {
        try await engine.write("add passkey") { r in
            let held = try await r.first(PasskeysTable.count, [.text(passkey.userId)]) { try $0.int64("n") } ?? 0
            guard held < limit else { return false }
            try await r.run(PasskeysTable.insert, PasskeysTable.insertArguments(passkey))
            return true
        }
    }

    public func passkeys(userId: String) async throws -> [PasskeyRecord] {
        try await engine.read("list passkeys") { r in try await r.all(PasskeysTable.ofUser, [.text(userId)], PasskeysTable.passkey) }
    }

    public func passkey(app: String, id: String) async throws -> PasskeyRecord? {
        try await engine.read("read passkey") { r in try await r.first(PasskeysTable.byId, [.text(app), .text(id)], PasskeysTable.passkey) }
    }

    public func usePasskey(app: String, id: String, signCount: Int64, at time: Int64) async throws -> Bool {
        try await engine.write("use passkey") { r in
            try await r.count(
                PasskeysTable.use,
                [.integer(signCount), .integer(time), .text(app), .text(id), .integer(signCount), .integer(signCount)]) > 0
        }
    }

    public func renamePasskey(app: String, id: String, userId: String, name: String) async throws -> Bool {
        try await engine.write("rename passkey") { r in
            try await r.count(PasskeysTable.rename, [.text(name), .text(app), .text(id), .text(userId)]) > 0
        }
    }

    public func deletePasskey(app: String, id: String, userId: String) async throws -> Bool {
        try await engine.write("remove passkey") { r in
            guard try await r.count(PasskeysTable.delete, [.text(app), .text(id), .text(userId)]) > 0 else { return false }
            try await r.run(PasskeysTable.deleteSessions, [.text(userId), .text(id)])
            return true
        }
    }
}
