// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// TOTP factors, phone factors and recovery codes, on every engine: each code is spent once,
/// whoever races; phone factors are read with TOTP in one statement, and move with their user.
extension StoreConformanceTests {
    @Test(arguments: Engine.allCases)
    func totpEnrolmentIsConfirmedOnceAndStepsAreSpentInOrder(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("u1", Self.identity("i1")))
            func factor(_ secret: UInt8, at time: Int64 = 10) -> TOTPFactor {
                TOTPFactor(userId: "u1", appId: "app", secret: [secret], confirmedAt: nil, lastStep: 0, createdAt: time)
            }
            #expect(try await store.secondFactors(userId: "u1") == SecondFactors(totp: nil, recoveryCodes: 0))
            #expect(try await store.startTOTPEnrolment(factor(1)))
            #expect(try await store.startTOTPEnrolment(factor(2, at: 11)), "an unconfirmed enrolment is replaced")
            #expect(try await store.secondFactors(userId: "u1").totp?.secret == [2])
            #expect(try await store.secondFactors(userId: "u1").usable.isEmpty, "not confirmed: no login asks for it")
            #expect(try await !store.useTOTPStep(userId: "u1", step: 5), "an unconfirmed factor spends nothing")

            let digests: [[UInt8]] = [[1], [2], [3]]
            #expect(try await store.confirmTOTP(userId: "u1", step: 100, at: 20, recoveryCodes: digests))
            #expect(try await !store.confirmTOTP(userId: "u1", step: 101, at: 21, recoveryCodes: []), "confirmed once")
            #expect(try await !store.startTOTPEnrolment(factor(3)), "a confirmed factor is not replaced")
            let enrolled = try await store.secondFactors(userId: "u1")
            #expect(enrolled.totp?.secret == [2] && enrolled.totp?.confirmedAt == 20 && enrolled.totp?.lastStep == 100)
            #expect(enrolled.recoveryCodes == 3 && enrolled.usable == ["totp", "recovery_code"])

            #expect(try await !store.useTOTPStep(userId: "u1", step: 100), "the confirming code's step is spent")
            #expect(try await !store.useTOTPStep(userId: "u1", step: 99))
            #expect(try await store.useTOTPStep(userId: "u1", step: 101))
            #expect(try await !store.useTOTPStep(userId: "u1", step: 101), "a step is spent once")

            #expect(try await store.useRecoveryCode(userId: "u1", digest: [2]))
            #expect(try await !store.useRecoveryCode(userId: "u1", digest: [2]), "a recovery code is spent once")
            #expect(try await !store.useRecoveryCode(userId: "u1", digest: [9]))
            #expect(try await store.secondFactors(userId: "u1").recoveryCodes == 2)
            try await store.replaceRecoveryCodes(userId: "u1", digests: [[7]])
            #expect(try await !store.useRecoveryCode(userId: "u1", digest: [1]), "replaced codes are gone")
            #expect(try await store.secondFactors(userId: "u1").recoveryCodes == 1)

            #expect(try await store.deleteTOTP(userId: "u1"))
            #expect(try await !store.deleteTOTP(userId: "u1"))
            #expect(try await store.secondFactors(userId: "u1") == SecondFactors(totp: nil, recoveryCodes: 0))
            #expect(try await !store.useRecoveryCode(userId: "u1", digest: [7]), "removing TOTP removes the codes")

            // A deleted user takes their factor with them.
            #expect(try await store.startTOTPEnrolment(factor(4)))
            #expect(try await store.confirmTOTP(userId: "u1", step: 1, at: 30, recoveryCodes: [[4]]))
            try await store.deleteUser(id: "u1", app: "app")
            try await store.insertUser(Self.user("u1", Self.identity("i2")))
            #expect(try await store.secondFactors(userId: "u1") == SecondFactors(totp: nil, recoveryCodes: 0))
        }
    }

    @Test(arguments: Engine.allCases)
    func phoneFactorsAreEnrolledOncePerNumberReadWithTOTPAndMoveWithTheirUser(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("u1", Self.identity("i1")))
            func phone(_ id: String, _ number: String, at time: Int64, name: String? = nil) -> PhoneFactor {
                PhoneFactor(userId: "u1", appId: "app", enrollmentId: id, phoneNumber: number, displayName: name, enrolledAt: time)
            }
            #expect(try await store.addPhoneFactor(phone("e2", "+15550100002", at: 20)))
            #expect(try await store.addPhoneFactor(phone("e1", "+15550100001", at: 10, name: "work")))
            #expect(try await !store.addPhoneFactor(phone("e3", "+15550100001", at: 30)), "a number is enrolled once per user")
            var factors = try await store.secondFactors(userId: "u1")
            #expect(factors.phones == [phone("e1", "+15550100001", at: 10, name: "work"), phone("e2", "+15550100002", at: 20)], "oldest first")
            #expect(factors.totp == nil && factors.any && factors.usable == ["phone"])

            // With TOTP (one statement reads both) and a passkey, every kind is usable.
            #expect(try await store.startTOTPEnrolment(TOTPFactor(userId: "u1", appId: "app", secret: [1], lastStep: 0, createdAt: 5)))
            #expect(try await store.secondFactors(userId: "u1").usable == ["phone"], "an unconfirmed TOTP is not asked for")
            #expect(try await store.confirmTOTP(userId: "u1", step: 1, at: 6, recoveryCodes: [[1]]))
            factors = try await store.secondFactors(userId: "u1")
            #expect(factors.totp?.confirmedAt == 6 && factors.phones.count == 2 && factors.usable == ["totp", "phone", "recovery_code"])

            // Export carries them; an import into an empty store brings them back.
            let exported = try await store.exportUsers(app: "app", after: nil, limit: 10)
            let phones = factors.phones
            #expect(exported.first?.phones == phones)
            let (other, closeOther) = try await engine.open()
            defer { closeOther() }
            #expect(try await other.importUsers(exported, looseAccounts: []).imported == 1)
            #expect(try await other.secondFactors(userId: "u1").phones == phones)

            #expect(try await store.deletePhoneFactor(userId: "u1", enrollmentId: "e1"))
            #expect(try await !store.deletePhoneFactor(userId: "u1", enrollmentId: "e1"))
            #expect(try await !store.deletePhoneFactor(userId: "someone-else", enrollmentId: "e2"), "only the user's own")
            #expect(try await store.secondFactors(userId: "u1").phones.map(\.enrollmentId) == ["e2"])
            try await store.deleteUser(id: "u1", app: "app")
            #expect(try await store.secondFactors(userId: "u1") == SecondFactors(recoveryCodes: 0), "a deleted user takes them along")
        }
    }

    /// Many uses of one step, and of one recovery code, at once: exactly one succeeds.
    @Test(arguments: Engine.allCases)
    func racingUsesOfOneCodeLeaveOneWinner(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("u1", Self.identity("i1")))
            #expect(
                try await store.startTOTPEnrolment(
                    TOTPFactor(userId: "u1", appId: "app", secret: [1], confirmedAt: nil, lastStep: 0, createdAt: 1)))
            #expect(try await store.confirmTOTP(userId: "u1", step: 1, at: 1, recoveryCodes: [[5]]))
            func race(_ use: @escaping @Sendable () async throws -> Bool) async throws -> Int {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<8 { group.addTask(operation: use) }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            #expect(try await race { try await store.useTOTPStep(userId: "u1", step: 2) } == 1)
            #expect(try await race { try await store.useRecoveryCode(userId: "u1", digest: [5]) } == 1)
        }
    }
}
