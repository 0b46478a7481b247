// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Phone second factors: the text that completes a login (both protocols), and enrolling or
/// removing a phone (Firebase Auth's v2 API; authsh's App Services API has no route for it).
///
/// A login of a user with a phone factor throws `MFARequired` with `phone` among its
/// `factors` and the numbers (all but their last 4 digits hidden) in `details["phones"]`;
/// ``App/sendPhoneCode(_:)`` texts the code, and ``Credentials/mfa(token:code:)`` with it
/// completes the login. Over Firebase's API the text's `sessionInfo` is kept in memory by the
/// app, for the completion.
extension App {
    /// Texts the code of a phone factor for the login that threw `error` (`MFARequired`): the
    /// factor named by `enrollmentId`, else its first phone. Returns the number texted, obscured.
    @discardableResult
    public func sendPhoneCode(_ error: AuthClientError, enrollmentId: String? = nil) async throws(AuthClientError) -> String {
        guard let token = error.mfaToken else {
            throw AuthClientError(code: "MFAFactorNotFound", message: "sendPhoneCode takes the MFARequired error of a login")
        }
        let phones = error.details["phones"]?.arrayValue ?? []
        return try await sendPhoneCode(
            mfaToken: token, enrollmentId: enrollmentId ?? phones.first?["enrollmentId"]?.stringValue,
            knownNumber: phones.first { enrollmentId == nil || $0["enrollmentId"]?.stringValue == enrollmentId }?["phoneNumber"]?.stringValue)
    }

    /// Texts the code of the phone factor `enrollmentId` (or the user's only one) for the login
    /// of `mfaToken`. Returns the number texted, obscured.
    @discardableResult
    public func sendPhoneCode(mfaToken: String, enrollmentId: String? = nil) async throws(AuthClientError) -> String {
        try await sendPhoneCode(mfaToken: mfaToken, enrollmentId: enrollmentId, knownNumber: nil)
    }

    private func sendPhoneCode(mfaToken: String, enrollmentId: String?, knownNumber: String?) async throws(AuthClientError) -> String {
        if let firebase {
            var body: EJSONDocument = ["mfaPendingCredential": .string(mfaToken), "phoneSignInInfo": [:]]
            if let enrollmentId { body["mfaEnrollmentId"] = .string(enrollmentId) }
            let reply = try await firebaseCall(firebase, "v2/accounts/mfaSignIn:start", body)
            guard let session = reply["phoneResponseInfo"]?["sessionInfo"]?.stringValue else {
                throw malformed("mfaSignIn:start answered no phoneResponseInfo.sessionInfo")
            }
            firebasePhoneSignIns.withLock { $0[mfaToken] = session }
            return knownNumber ?? ""
        }
        var body: EJSONDocument = ["mfaToken": .string(mfaToken)]
        if let enrollmentId { body["enrollmentId"] = .string(enrollmentId) }
        let reply = try await request("POST", Routes.app(id) + "/auth/providers/mfa/sms", body: .document(body), auth: .none)
        return reply["phoneNumber"]?.stringValue ?? knownNumber ?? ""
    }
}

extension UserSecondFactors {
    /// Starts enrolling `phoneNumber` (E.164, `+` and digits) as a second factor: a code is
    /// texted to it (a recent login). Firebase Auth's API only.
    public func enrollPhone(_ phoneNumber: String) async throws(AuthClientError) {
        let project = try user.firebaseOnly("enrolling a phone factor")
        let reply = try await user.app.firebaseCall(
            project, "v2/accounts/mfaEnrollment:start", ["phoneEnrollmentInfo": ["phoneNumber": .string(phoneNumber)]], as: user.id)
        guard let session = reply["phoneSessionInfo"]?["sessionInfo"]?.stringValue else {
            throw user.app.malformed("mfaEnrollment:start answered no phoneSessionInfo.sessionInfo")
        }
        user.app.firebaseEnrolments.withLock { $0["phone:" + user.id] = session }
    }

    /// Confirms the phone enrolment under way with the code texted to it; from then on a login
    /// of this user answers `MFARequired` with `phone` among its factors.
    public func confirmPhone(code: String, displayName: String? = nil) async throws(AuthClientError) {
        let project = try user.firebaseOnly("enrolling a phone factor")
        guard let session = user.app.firebaseEnrolments.withLock({ $0["phone:" + user.id] }) else {
            throw AuthClientError(
                code: "MFAFactorNotFound", message: "no phone enrolment of user \(user.id) is under way here: start one with enrollPhone")
        }
        var body: EJSONDocument = ["phoneVerificationInfo": ["sessionInfo": .string(session), "code": .string(code)]]
        if let displayName { body["displayName"] = .string(displayName) }
        let reply = try await user.app.firebaseCall(project, "v2/accounts/mfaEnrollment:finalize", body, as: user.id)
        user.app.firebaseEnrolments.withLock { $0["phone:" + user.id] = nil }
        try user.keepFirebaseTokens(reply)
    }

    /// Removes the phone factor `enrollmentId` (``SecondFactor/enrollmentId`` of ``list()``;
    /// a recent login that used a second factor).
    public func removePhone(enrollmentId: String) async throws(AuthClientError) {
        let project = try user.firebaseOnly("removing a phone factor")
        let reply = try await user.app.firebaseCall(
            project, "v2/accounts/mfaEnrollment:withdraw", ["mfaEnrollmentId": .string(enrollmentId)], as: user.id)
        try user.keepFirebaseTokens(reply)
    }
}
