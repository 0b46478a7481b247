// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// The v2 API's second factors, in Firebase's fields.
extension FirebaseController {
    /// The v2 API's second factors (``FirebaseSecondFactors``), TOTP and phone:
    /// `mfaEnrollment:start|finalize|withdraw`, `mfaSignIn:start|finalize`.
    @Sendable func mfa(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await Self.answering {
            let method = context.parameters.get("method") ?? ""
            let methods = ["mfaEnrollment:start", "mfaEnrollment:finalize", "mfaEnrollment:withdraw", "mfaSignIn:start", "mfaSignIn:finalize"]
            guard methods.contains(method) else { throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound") }
            let project = try projects.project(apiKey: Self.apiKey(request))
            let body = try await InputFields.read(request, context: context)
            let phone = body.document["phoneVerificationInfo"]
            let code = body.document["totpVerificationInfo"]?["verificationCode"]?.stringValue ?? ""
            func tokens(_ s: FirebaseAccounts.SignedIn) -> EJSONDocument { ["idToken": .string(s.idToken), "refreshToken": .string(s.refreshToken)] }
            func idToken() throws -> String { try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN") }
            switch method {
            case "mfaEnrollment:start":
                if let info = body.document["phoneEnrollmentInfo"] {
                    return try await secondFactors.startPhone(
                        idToken: try idToken(), phoneNumber: info["phoneNumber"]?.stringValue, project: project, address: context.clientAddress)
                }
                guard body.document["totpEnrollmentInfo"] != nil else {
                    throw FirebaseError.invalid("INVALID_ARGUMENT", "phoneEnrollmentInfo or totpEnrollmentInfo is missing")
                }
                return try await secondFactors.startTOTP(idToken: try idToken(), project: project)
            case "mfaEnrollment:finalize":
                if let phone {
                    return tokens(
                        try await secondFactors.finalizePhone(
                            idToken: try idToken(), sessionInfo: phone["sessionInfo"]?.stringValue, code: phone["code"]?.stringValue,
                            displayName: try Self.optionalString(body, "displayName"), project: project, address: context.clientAddress))
                }
                let (signedIn, codes) = try await secondFactors.finalizeTOTP(idToken: try idToken(), code: code, project: project)
                var answer = tokens(signedIn)
                answer["recoveryCodes"] = codes
                return answer
            case "mfaEnrollment:withdraw":
                return tokens(
                    try await secondFactors.withdraw(
                        idToken: try idToken(), enrollmentId: try Self.string(body, "mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID"),
                        project: project))
            case "mfaSignIn:start":
                return try await secondFactors.startSignIn(
                    pendingCredential: try Self.string(body, "mfaPendingCredential", missing: "MISSING_MFA_PENDING_CREDENTIAL"),
                    enrollmentId: try Self.optionalString(body, "mfaEnrollmentId"), project: project, address: context.clientAddress)
            default:
                let answer: FirebaseSecondFactors.Answer =
                    if let phone {
                        .phone(code: phone["code"]?.stringValue ?? "", sessionInfo: phone["sessionInfo"]?.stringValue ?? "")
                    } else {
                        .totp(code: code)
                    }
                return tokens(
                    try await secondFactors.finishSignIn(
                        pendingCredential: try Self.string(body, "mfaPendingCredential", missing: "MISSING_CREDENTIAL"),
                        enrollmentId: try Self.optionalString(body, "mfaEnrollmentId"), answer: answer, project: project,
                        address: context.clientAddress))
            }
        }
    }
}
