// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// TOTP factors and recovery codes, on every engine: each code is spent once, whoever races.
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
