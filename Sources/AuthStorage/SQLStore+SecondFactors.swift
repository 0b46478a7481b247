// SPDX-License-Identifier: Apache-2.0
/// Second factors: TOTP enrolments and recovery codes. Each use of a code is one conditional
/// statement, so two requests racing with the same code cannot both succeed, on any instance.
extension SQLStore {
    public func secondFactors(userId: String) async throws -> SecondFactors {
        try await engine.read("read second factors") { r in
            let totp = try await r.first(TOTPFactorsTable.select, [.text(userId)], TOTPFactorsTable.factor)
            // A user who never enrolled (nearly every login) costs one read.
            guard totp != nil else { return SecondFactors(totp: nil, recoveryCodes: 0) }
            let codes = try await r.first(RecoveryCodesTable.count, [.text(userId)]) { try $0.int64("n") } ?? 0
            let passkeys = try await r.first(PasskeysTable.count, [.text(userId)]) { try $0.int64("n") } ?? 0
            return SecondFactors(totp: totp, recoveryCodes: Int(codes), passkeys: Int(passkeys))
        }
    }

    public func startTOTPEnrolment(_ factor: TOTPFactor) async throws -> Bool {
        try await engine.write("start TOTP enrolment") { r in
            try await r.count(TOTPFactorsTable.start, TOTPFactorsTable.startArguments(factor)) > 0
        }
    }

    public func confirmTOTP(userId: String, step: Int64, at time: Int64, recoveryCodes: [[UInt8]]) async throws -> Bool {
        try await engine.write("confirm TOTP enrolment") { r in
            guard try await r.count(TOTPFactorsTable.confirm, [.integer(time), .integer(step), .text(userId), .integer(step)]) > 0
            else { return false }
            try await Self.replaceRecoveryCodes(recoveryCodes, userId: userId, on: r)
            return true
        }
    }

    public func useTOTPStep(userId: String, step: Int64) async throws -> Bool {
        try await engine.write("use TOTP code") { r in
            try await r.count(TOTPFactorsTable.useStep, [.integer(step), .text(userId), .integer(step)]) > 0
        }
    }

    public func useRecoveryCode(userId: String, digest: [UInt8]) async throws -> Bool {
        try await engine.write("use recovery code") { r in
            try await r.count(RecoveryCodesTable.use, [.text(userId), .blob(digest)]) > 0
        }
    }

    public func replaceRecoveryCodes(userId: String, digests: [[UInt8]]) async throws {
        try await engine.write("replace recovery codes") { r in
            try await Self.replaceRecoveryCodes(digests, userId: userId, on: r)
        }
    }

    public func deleteTOTP(userId: String) async throws -> Bool {
        try await engine.write("remove TOTP") { r in
            try await r.run(RecoveryCodesTable.deleteOfUser, [.text(userId)])
            return try await r.count(TOTPFactorsTable.delete, [.text(userId)]) > 0
        }
    }

    private static func replaceRecoveryCodes(_ digests: [[UInt8]], userId: String, on r: Engine.Runner) async throws {
        try await r.run(RecoveryCodesTable.deleteOfUser, [.text(userId)])
        for digest in digests { try await r.run(RecoveryCodesTable.insert, [.text(userId), .blob(digest)]) }
    }
}
