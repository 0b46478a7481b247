// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation

/// Firebase's second factors (the v2 API: `accounts/mfaEnrollment:start|finalize|withdraw`,
/// `accounts/mfaSignIn:finalize`) on authsh's TOTP factor, with authsh's rules: enrolling needs
/// a recent login, withdrawing one that used the factor (``SecondFactorService``), and a
/// password sign-in of a user with TOTP answers Firebase's `mfaPendingCredential` (authsh's
/// `mfaToken`: 5 minutes, 5 attempts, the back-off of wrong codes) instead of tokens.
///
/// A user has at most one TOTP factor, whose enrollment id is `totp`. Recovery codes and
/// passkeys complete a login through the App Services API only; phone factors are not built.
struct FirebaseSecondFactors {
    let accounts: FirebaseAccounts
    let factors: SecondFactorService

    /// The enrollment id of a user's TOTP factor.
    static let totpEnrollmentId = "totp"

    /// The user's enrolled factors as Firebase's `mfaInfo`.
    static func mfaInfo(_ factors: SecondFactors) -> [EJSON] {
        guard let totp = factors.totp, let confirmed = totp.confirmedAt else { return [] }
        return [
            [
                "mfaEnrollmentId": .string(totpEnrollmentId), "displayName": "TOTP", "totpInfo": [:],
                "enrolledAt": .string(Date(timeIntervalSince1970: Double(confirmed)).ISO8601Format()),
            ]
        ]
    }

    /// The caller an ID token is, as the factor rules read it: its session's login time and how
    /// that login proved the person.
    private func caller(idToken: String, project: FirebaseProjects.Project) async throws -> (Caller, FirebaseIDTokens.Verified, UserRecord) {
        let (token, user) = try await accounts.holder(idToken: idToken, project: project)
        let claims = IssuedTokenClaims(
            exp: token.claims["exp"]?.integerValue ?? 0, iat: token.claims["iat"]?.integerValue ?? 0, sub: user.id, typ: "access",
            iss: token.sessionId, auth_time: token.claims["auth_time"]?.integerValue, amr: token.methods)
        return (Caller(app: project.app, claims: claims), token, user)
    }

    /// `mfaEnrollment:start` with `totpEnrollmentInfo`: a new TOTP secret, as Firebase's
    /// `totpSessionInfo` (the enrolment waits on the server: its `sessionInfo` only names it).
    func startTOTP(idToken: String, project: FirebaseProjects.Project) async throws -> EJSONDocument {
        let (caller, _, _) = try await self.caller(idToken: idToken, project: project)
        let started: EJSON
        do {
            started = try await factors.startTOTP(caller)
        } catch let error as ServiceError where error.code == .mfaFactorExists {
            throw FirebaseError.invalid("SECOND_FACTOR_EXISTS", error.message)
        }
        return [
            "totpSessionInfo": [
                "sharedSecretKey": started["secret"] ?? "", "verificationCodeLength": started["digits"] ?? 6,
                "hashingAlgorithm": "SHA1", "periodSec": started["period"] ?? 30, "sessionInfo": .string(caller.userId),
                "finalizeEnrollmentTime": .string(Date(timeIntervalSince1970: Double(accounts.clock.now + 600)).ISO8601Format()),
            ]
        ]
    }

    /// `mfaEnrollment:finalize` with `totpVerificationInfo`: the enrolment confirmed by a code,
    /// then the user signs in anew (new tokens, as Firebase gives them), and the recovery codes
    /// the enrolment made (an authsh addition: Firebase has none).
    func finalizeTOTP(idToken: String, code: String, project: FirebaseProjects.Project) async throws -> (
        FirebaseAccounts.SignedIn, recoveryCodes: EJSON
    ) {
        guard !code.isEmpty else { throw FirebaseError.invalid("MISSING_CODE") }
        let (caller, token, user) = try await self.caller(idToken: idToken, project: project)
        let confirmed: EJSON
        do {
            confirmed = try await factors.confirmTOTP(caller, code: code)
        } catch let error as ServiceError where error.code == .invalidMFACode {
            throw FirebaseError.invalid("INVALID_CODE", error.message)
        } catch let error as ServiceError where error.code == .mfaFactorNotFound {
            throw FirebaseError.invalid("INVALID_SESSION_INFO", error.message)
        }
        let signedIn = try await accounts.renew(token, user: user, project: project)
        return (signedIn, confirmed["recoveryCodes"] ?? [])
    }

    /// `mfaEnrollment:withdraw` of the TOTP factor (and the recovery codes), then new tokens.
    func withdraw(idToken: String, enrollmentId: String, project: FirebaseProjects.Project) async throws -> FirebaseAccounts.SignedIn {
        let (caller, token, user) = try await self.caller(idToken: idToken, project: project)
        guard enrollmentId == Self.totpEnrollmentId else { throw FirebaseError.invalid("MFA_ENROLLMENT_NOT_FOUND") }
        do {
            try await factors.removeTOTP(caller)
        } catch let error as ServiceError where error.code == .mfaFactorNotFound {
            throw FirebaseError.invalid("MFA_ENROLLMENT_NOT_FOUND")
        }
        return try await accounts.renew(token, user: user, project: project)
    }

    /// `mfaSignIn:finalize` with `totpVerificationInfo`: the login of a pending credential
    /// completed by a TOTP code, and its tokens.
    func finishSignIn(
        pendingCredential: String, enrollmentId: String?, code: String, project: FirebaseProjects.Project, address: String
    ) async throws -> FirebaseAccounts.SignedIn {
        guard enrollmentId == nil || enrollmentId == Self.totpEnrollmentId else { throw FirebaseError.invalid("MFA_ENROLLMENT_NOT_FOUND") }
        guard code.utf8.count == 6, code.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw FirebaseError.invalid("INVALID_CODE", "a TOTP code is 6 digits")
        }
        let app = project.app
        let login = accounts.login
        let pending: MFALogin.Pending, method: String
        do {
            (pending, method) = try await login.mfa.complete(
                InputFields(document: ["mfaToken": .string(pendingCredential), "code": .string(code)]), app: app, address: address)
        } catch let error as ServiceError where error.code == .invalidSession {
            throw FirebaseError.invalid("INVALID_MFA_PENDING_CREDENTIAL", error.message)
        } catch let error as ServiceError where error.code == .invalidMFACode {
            throw FirebaseError.invalid("INVALID_CODE", error.message)
        }
        let done = try await login.logIn(
            pending.proof, app: app, deviceId: pending.deviceId, address: address, completing: (pending.userId, method))
        return try await accounts.signedIn(done, providerType: pending.proof.identity.providerType, project: project)
    }
}

/// A sign-in that waits for its second factor: Firebase answers it with `200` and
/// `mfaPendingCredential` in place of the tokens (the SDKs' `auth/multi-factor-auth-required`).
struct FirebaseMFARequired: Error, Sendable {
    var pendingCredential: String
    var mfaInfo: [EJSON]
    var localId: String?

    var body: EJSONDocument {
        var d: EJSONDocument = ["mfaPendingCredential": .string(pendingCredential), "mfaInfo": .array(mfaInfo)]
        if let localId { d["localId"] = .string(localId) }
        return d
    }
}
