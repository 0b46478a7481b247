// SPDX-License-Identifier: Apache-2.0
/// Sign-ins under way and failed-password counts: what every instance must share so that a
/// flow started on one finishes on another, and guesses spread over instances count as one.
extension SQLStore {
    // MARK: sign-ins

    public func insertSignIn(_ signIn: SealedSignIn) async throws {
        try await engine.write("start sign-in") { r in try await r.run(SignInsTable.insert, SignInsTable.insertArguments(signIn)) }
    }

    public func takeSignIn(id: String, kind: SealedSignIn.Kind) async throws -> SealedSignIn? {
        try await engine.write("finish sign-in") { r in
            try await r.first(SignInsTable.take, [.text(id), .text(kind.rawValue)], SignInsTable.signIn)
        }
    }

    public func deleteExpiredSignIns(at time: Int64) async throws -> Int {
        try await engine.write("delete expired sign-ins") { r in try await r.count(SignInsTable.deleteExpired, [.integer(time)]) }
    }

    // MARK: failed passwords

    public func loginFailures(key: String) async throws -> LoginFailures? {
        try await engine.read("read login failures") { r in
            try await r.first(LoginFailuresTable.select, [.text(key)], LoginFailuresTable.failures)
        }
    }

    public func countLoginFailure(key: String, at time: Int64, memory: Int64, wait: (Int) -> Int64?) async throws {
        try await engine.write("count login failure") { r in
            let failures = try await r.first(LoginFailuresTable.count, [.text(key), .integer(time), .integer(memory), .integer(memory)]) {
                Int(try $0.int64("failures"))
            }
            if let failures, let until = wait(failures) {
                try await r.run(LoginFailuresTable.setWait, [.integer(until), .text(key)])
            }
        }
    }

    public func deleteLoginFailures(key: String) async throws {
        try await engine.write("clear login failures") { r in try await r.run(LoginFailuresTable.delete, [.text(key)]) }
    }

    public func deleteLoginFailures(lastBefore time: Int64) async throws -> Int {
        try await engine.write("forget login failures") { r in try await r.count(LoginFailuresTable.deleteOld, [.integer(time)]) }
    }
}
