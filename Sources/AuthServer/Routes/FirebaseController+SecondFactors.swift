// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// The v2 API's second factors, in Firebase's fields.
extension FirebaseController {
    /// The v2 API's second factors (``FirebaseSecondFactors``), TOTP only:
    /// `mfaEnrollment:start|finalize|withdraw`, `mfaSignIn:finalize`.
    @Sendable func mfa(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await Self.answering {
            let method = context.parameters.get("method") ?? ""
            let methods = ["mfaEnrollment:start", "mfaEnrollment:finalize", "mfaEnrollment:withdraw", "mfaSignIn:start", "mfaSignIn:finalize"]
            guard methods.contains(method) else { throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound") }
            let project = try projects.project(apiKey: Self.apiKey(request))
            let body = try await InputFields.read(request, context: context)
            if body.document["phoneEnrollmentInfo"] != nil || body.document["phoneSignInInfo"] != nil
                || body.document["phoneVerificationInfo"] != nil || method == "mfaSignIn:start"
            {
                throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "phone second factors are not built: TOTP is")
            }
            let code = body.document["totpVerificationInfo"]?["verificationCode"]?.stringValue ?? ""
            func tokens(_ s: FirebaseAccounts.SignedIn) -> EJSONDocument { ["idToken": .string(s.idToken), "refreshToken": .string(s.refreshToken)] }
            switch method {
            case "mfaEnrollment:start":
                guard body.document["totpEnrollmentInfo"] != nil else {
                    throw FirebaseError.invalid("INVALID_ARGUMENT", "totpEnrollmentInfo is missing")
                }
                return try await secondFactors.startTOTP(idToken: try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN"), project: project)
            case "mfaEnrollment:finalize":
                let (signedIn, codes) = try await secondFactors.finalizeTOTP(
                    idToken: try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN"), code: code, project: project)
                var answer = tokens(signedIn)
                answer["recoveryCodes"] = codes
                return answer
            case "mfaEnrollment:withdraw":
                return tokens(
                    try await secondFactors.withdraw(
                        idToken: try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN"),
                        enrollmentId: try Self.string(body, "mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID"), project: project))
            default:
                return tokens(
                    try await secondFactors.finishSignIn(
                        pendingCredential: try Self.string(body, "mfaPendingCredential", missing: "MISSING_CREDENTIAL"),
                        enrollmentId: try Self.optionalString(body, "mfaEnrollmentId"), code: code, project: project,
                        address: context.clientAddress))
            }
        }
    }
}
