// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation

/// Firebase's second factors (the v2 API: `accounts/mfaEnrollment:start|finalize|withdraw`,
/// `accounts/mfaSignIn:start|finalize`) on authsh's TOTP and phone factors, with authsh's
/// rules: enrolling needs a recent login (one that used a second factor, for a user who has
/// one), withdrawing one that used a factor (``SecondFactorService``), and a sign-in of a user
/// with a factor answers Firebase's `mfaPendingCredential` (authsh's `mfaToken`: 5 minutes,
/// 5 attempts, the back-off of wrong codes) instead of tokens.
///
/// A user has at most one TOTP factor, whose enrollment id is `totp`, and any number of phone
/// factors (``FirebaseSecondFactors+Phone``). Recovery codes and passkeys complete a login
/// through the App Services API only.
struct FirebaseSecondFactors {
    let accounts: FirebaseAccounts
    let factors: SecondFactorService
    /// Texts and seals phone codes.
    let phone: FirebasePhoneSignIn

    /// The enrollment id of a user's TOTP factor.
    static let totpEnrollmentId = "totp"

    /// The user's enrolled factors as Firebase's `mfaInfo`: TOTP, then the phones, oldest
    /// first; a phone's number `obscured` (all but its last 4 digits) for a sign-in that has
    /// not finished, as Firebase shows it there.
    static func mfaInfo(_ factors: SecondFactors, obscured: Bool = false) -> [EJSON] {
        var info: [EJSON] = []
        if let totp = factors.totp, let confirmed = totp.confirmedAt {
            info.append([
                "mfaEnrollmentId": .string(totpEnrollmentId), "displayName": "TOTP", "totpInfo": [:],
                "enrolledAt": .string(Date(timeIntervalSince1970: Double(confirmed)).ISO8601Format()),
            ])
        }
        for p in factors.phones {
            var d: EJSONDocument = [
                "mfaEnrollmentId": .string(p.enrollmentId),
                "phoneInfo": .string(obscured ? MFALogin.obscured(p.phoneNumber) : p.phoneNumber),
                "enrolledAt": .string(Date(timeIntervalSince1970: Double(p.enrolledAt)).ISO8601Format()),
            ]
            if let name = p.displayName { d["displayName"] = .string(name) }
            info.append(.document(d))
        }
        return info
    }

    /// The caller an ID token is, as the factor rules read it: its session's login time and how
    /// that login proved the person.
    func caller(idToken: String, project: FirebaseProjects.Project) async throws -> (Caller, FirebaseIDTokens.Verified, UserRecord) {
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

    /// `mfaEnrollment:withdraw` of the TOTP factor (and the recovery codes) or of a phone
    /// factor, then new tokens.
    func withdraw(idToken: String, enrollmentId: String, project: FirebaseProjects.Project) async throws -> FirebaseAccounts.SignedIn {
        let (caller, token, user) = try await self.caller(idToken: idToken, project: project)
        do {
            if enrollmentId == Self.totpEnrollmentId {
                try await factors.removeTOTP(caller)
            } else {
                AuditTrail.event("phone_factor_removed")
                try await factors.removePhone(caller, enrollmentId: enrollmentId)
            }
        } catch let error as ServiceError where error.code == .mfaFactorNotFound {
            throw FirebaseError.invalid("MFA_ENROLLMENT_NOT_FOUND")
        }
        return try await accounts.renew(token, user: user, project: project)
    }

    /// `mfaSignIn:finalize`: the login of a pending credential completed by a TOTP code
    /// (`totpVerificationInfo`) or by the code texted for it (`phoneVerificationInfo`, its
    /// `sessionInfo` the latest text's), and its tokens.
    func finishSignIn(
        pendingCredential: String, enrollmentId: String?, answer: Answer, project: FirebaseProjects.Project, address: String
    ) async throws -> FirebaseAccounts.SignedIn {
        var fields: EJSONDocument = ["mfaToken": .string(pendingCredential), "code": .string(answer.code)]
        switch answer {
        case .totp:
            guard enrollmentId == nil || enrollmentId == Self.totpEnrollmentId else { throw FirebaseError.invalid("MFA_ENROLLMENT_NOT_FOUND") }
            guard !answer.code.isEmpty else { throw FirebaseError.invalid("MISSING_CODE") }
            // A recovery code in place of the TOTP code (an authsh addition: the enrolment over
            // this API answered them).
            let isTOTP = answer.code.utf8.count == 6 && answer.code.utf8.allSatisfy { (48...57).contains($0) }
            fields["factor"] = isTOTP ? "totp" : "recovery_code"
        case .phone(_, let sessionInfo):
            guard !answer.code.isEmpty else { throw FirebaseError.invalid("MISSING_CODE") }
            guard !sessionInfo.isEmpty else { throw FirebaseError.invalid("MISSING_SESSION_INFO") }
            fields["factor"] = "phone"
            fields["sessionInfo"] = .string(sessionInfo)
        }
        let app = project.app
        let login = accounts.login
        let pending: MFALogin.Pending, method: String
        do {
            (pending, method) = try await login.mfa.complete(InputFields(document: fields), app: app, address: address)
        } catch let error as ServiceError where error.code == .invalidSession {
            throw FirebaseError.invalid("INVALID_MFA_PENDING_CREDENTIAL", error.message)
        } catch let error as ServiceError where error.code == .invalidMFACode {
            throw FirebaseError.invalid(
                answer.isPhone && error.message.hasPrefix("sessionInfo") ? "INVALID_SESSION_INFO" : "INVALID_CODE", error.message)
        }
        let done = try await login.logIn(
            pending.proof, app: app, deviceId: pending.deviceId, address: address, completing: (pending.userId, method))
        return try await accounts.signedIn(done, providerType: pending.proof.identity.providerType, project: project)
    }

    /// How `mfaSignIn:finalize` was answered.
    enum Answer {
        case totp(code: String)
        case phone(code: String, sessionInfo: String)

        var code: String {
            switch self {
            case .totp(let code), .phone(let code, _): code
            }
        }
        var isPhone: Bool { if case .phone = self { true } else { false } }
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
