// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Phone numbers as second factors, in Firebase's v2 API: `mfaEnrollment:start` with
/// `phoneEnrollmentInfo` texts a code to the number (``PhoneCodes``: the `sms` rate limit, the
/// `sendSms` hook, test numbers), `mfaEnrollment:finalize` with `phoneVerificationInfo` enrols
/// it; `mfaSignIn:start` texts a code for a sign-in waiting for its second step, and
/// `mfaSignIn:finalize` completes it (``MFALogin``).
///
/// As production Firebase has it: a user enrols a phone only with a proven email, and not
/// after an anonymous, phone or custom-token sign-in (`UNSUPPORTED_FIRST_FACTOR`); a phone
/// that signed in is never its own second factor (``AuthenticationMethods``).
extension FirebaseSecondFactors {
    /// First factors a second factor cannot follow (Firebase's `sign_in_provider`).
    static let ineligibleFirstFactors: Set<String> = ["anonymous", "phone", "custom"]

    /// `mfaEnrollment:start` with `phoneEnrollmentInfo`: a code texted to the number, and the
    /// `phoneSessionInfo` that proves it (sealed: the number, the code's digest, the user).
    func startPhone(idToken: String, phoneNumber: String?, project: FirebaseProjects.Project, address: String) async throws
        -> EJSONDocument
    {
        AuditTrail.event("phone_factor_enrolment_started")
        let (caller, token, user) = try await self.caller(idToken: idToken, project: project)
        try Self.checkEligible(token, user: user)
        try await factors.requireFactorAddition(caller)
        guard let number = phoneNumber, AppConfiguration.Phone.isValid(number) else {
            throw FirebaseError.invalid("INVALID_PHONE_NUMBER", "Invalid format.")
        }
        guard try await accounts.store.secondFactors(userId: user.id).phones.allSatisfy({ $0.phoneNumber != number }) else {
            throw FirebaseError.invalid("SECOND_FACTOR_EXISTS", "Phone number already enrolled as second factor for this account.")
        }
        let app = project.app
        let now = accounts.clock.now
        let sessionInfo = try await FirebasePhoneSignIn.texting {
            try await phone.codes.send(to: number, app: app, address: address) { digest in
                try phone.states.seal(
                    ["p": .string(number), "d": .string(digest), "u": .string(user.id)], kind: .phoneFactor, app: app.id,
                    expires: now + PhoneCodes.lifetime)
            }
        }
        return ["phoneSessionInfo": ["sessionInfo": .string(sessionInfo)]]
    }

    /// `mfaEnrollment:finalize` with `phoneVerificationInfo`: the number of a `sessionInfo`
    /// made for this user, whose code is `code`, enrolled (once); new tokens.
    func finalizePhone(
        idToken: String, sessionInfo: String?, code: String?, displayName: String?, project: FirebaseProjects.Project, address: String
    ) async throws -> FirebaseAccounts.SignedIn {
        AuditTrail.event("phone_factor_enrolled")
        let (caller, token, user) = try await self.caller(idToken: idToken, project: project)
        try Self.checkEligible(token, user: user)
        guard let code, !code.isEmpty else { throw FirebaseError.invalid("MISSING_CODE") }
        guard let sessionInfo, !sessionInfo.isEmpty else { throw FirebaseError.invalid("MISSING_SESSION_INFO") }
        let app = project.app
        let now = accounts.clock.now
        guard let opened = phone.states.open(sessionInfo, kind: .phoneFactor, now: now), opened.app == app.id,
            opened.content["u"]?.stringValue == user.id, let number = opened.content["p"]?.stringValue,
            let digest = opened.content["d"]?.stringValue
        else { throw FirebaseError.invalid("INVALID_SESSION_INFO") }
        try await accounts.abuse.checkRate(.token, app: app, address: address, account: number)
        guard PhoneCodes.matches(code, digest: digest) else { throw FirebaseError.invalid("INVALID_CODE") }
        guard try await phone.states.take(sessionInfo, kind: .phoneFactor, now: now) != nil else {
            throw FirebaseError.invalid("INVALID_SESSION_INFO")
        }
        guard try await factors.addPhone(caller, number: number, displayName: displayName) != nil else {
            throw FirebaseError.invalid("SECOND_FACTOR_EXISTS", "Phone number already enrolled as second factor for this account.")
        }
        return try await accounts.renew(token, user: user, project: project)
    }

    /// `mfaSignIn:start`: a code texted to the phone factor `enrollmentId` of the sign-in
    /// waiting on `pendingCredential`; its `phoneResponseInfo`.
    func startSignIn(pendingCredential: String, enrollmentId: String?, project: FirebaseProjects.Project, address: String)
        async throws -> EJSONDocument
    {
        guard let enrollmentId, !enrollmentId.isEmpty else {
            throw FirebaseError.invalid("MISSING_MFA_ENROLLMENT_ID", "No second factor identifier is provided.")
        }
        let sent: (session: String, phoneNumber: String)
        do {
            sent = try await FirebasePhoneSignIn.texting {
                try await accounts.login.mfa.sendPhoneCode(
                    token: pendingCredential, enrollmentId: enrollmentId, app: project.app, address: address)
            }
        } catch let error as ServiceError where error.code == .invalidSession {
            throw FirebaseError.invalid("INVALID_MFA_PENDING_CREDENTIAL", error.message)
        }
        return ["phoneResponseInfo": ["sessionInfo": .string(sent.session)]]
    }

    /// Refuses an enrolment after a first factor Firebase takes none after, or for a user
    /// without a proven email.
    private static func checkEligible(_ token: FirebaseIDTokens.Verified, user: UserRecord) throws(FirebaseError) {
        let provider = token.claims["firebase"]?["sign_in_provider"]?.stringValue ?? ""
        guard !ineligibleFirstFactors.contains(provider) else {
            throw FirebaseError.invalid("UNSUPPORTED_FIRST_FACTOR", "MFA is not available for the given first factor.")
        }
        guard FirebaseIdentities.email(of: user)?.verified == true else {
            throw FirebaseError.invalid("UNVERIFIED_EMAIL", "Need to verify email first before enrolling second factors.")
        }
    }
}
