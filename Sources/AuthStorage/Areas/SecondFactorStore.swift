// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Users' TOTP factors, phone factors and recovery codes. One area of ``AuthStore``.
public protocol SecondFactorStore: Sendable {
    /// The user's TOTP factor (confirmed or being enrolled), phone factors (oldest first) and
    /// how many recovery codes they hold.
    func secondFactors(userId: String) async throws -> SecondFactors
    /// Enrols a phone factor; false (nothing written) when the user holds that number already
    /// or the enrolment id is taken.
    func addPhoneFactor(_ factor: PhoneFactor) async throws -> Bool
    /// Removes one of the user's phone factors; false when they hold none with that id.
    func deletePhoneFactor(userId: String, enrollmentId: String) async throws -> Bool
    /// Starts a TOTP enrolment, replacing one not confirmed yet; false (nothing written) when
    /// the user has a confirmed factor.
    func startTOTPEnrolment(_ factor: TOTPFactor) async throws -> Bool
    /// Confirms the user's enrolment with a code of `step` at `time` and stores the digests of
    /// their recovery codes (replacing any), in one transaction; false when there is no
    /// enrolment to confirm, or `step` is not after the last one used.
    func confirmTOTP(userId: String, step: Int64, at time: Int64, recoveryCodes: [[UInt8]]) async throws -> Bool
    /// Spends `step` of the user's confirmed factor; false when it is not after the last step
    /// used (a replayed code) or there is no confirmed factor.
    func useTOTPStep(userId: String, step: Int64) async throws -> Bool
    /// Spends one recovery code; false when the user holds none with that digest.
    func useRecoveryCode(userId: String, digest: [UInt8]) async throws -> Bool
    /// Replaces the user's recovery codes.
    func replaceRecoveryCodes(userId: String, digests: [[UInt8]]) async throws
    /// Removes the user's TOTP factor and recovery codes; false when there was no factor.
    func deleteTOTP(userId: String) async throws -> Bool
}
