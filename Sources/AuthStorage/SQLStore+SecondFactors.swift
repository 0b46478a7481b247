// SPDX-License-Identifier: Apache-2.0
/// Second factors: TOTP enrolments, phone factors and recovery codes. Each use of a code is one conditional
/// statement, so two requests racing with the same code cannot both succeed, on any instance.
extension SQLStore {
    public func secondFactors(userId: String) async throws -> SecondFactors {
        try await engine.read("read second factors") { r in
            var totp: TOTPFactor?
            var phones: [PhoneFactor] = []
            try await r.each(PhoneFactorsTable.selectWithTOTP, [.text(userId), .text(userId)]) { row in
                if try row.text("kind") == "totp" {
                    totp = TOTPFactor(
                        userId: userId, appId: try row.text("app_id"), secret: try row.bytes("secret"),
                        confirmedAt: try row.optionalInt64("confirmed_at"), lastStep: try row.int64("last_step"),
                        createdAt: try row.int64("created_at"))
                } else {
                    phones.append(try PhoneFactorsTable.factor(row, userId: userId))
                }
            }
            // A user who never enrolled (nearly every login) costs one read.
            guard totp != nil || !phones.isEmpty else { return SecondFactors(recoveryCodes: 0) }
            let codes = try await r.first(RecoveryCodesTable.count, [.text(userId)]) { try $0.int64("n") } ?? 0
            let passkeys = try await r.first(PasskeysTable.count, [.text(userId)]) { try $0.int64("n") } ?? 0
            return SecondFactors(
                totp: totp, phones: phones.sorted { ($0.enrolledAt, $0.enrollmentId) < ($1.enrolledAt, $1.enrollmentId) },
                recoveryCodes: Int(codes), passkeys: Int(passkeys))
        }
    }

    public func addPhoneFactor(_ factor: PhoneFactor) async throws -> Bool {
        try await engine.write("enrol phone factor") { r in
            try await r.count(PhoneFactorsTable.insert, PhoneFactorsTable.arguments(factor)) > 0
        }
    }

    public func deletePhoneFactor(userId: String, enrollmentId: String) async throws -> Bool {
        try await engine.write("remove phone factor") { r in
            try await r.count(PhoneFactorsTable.delete, [.text(userId), .text(enrollmentId)]) > 0
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
