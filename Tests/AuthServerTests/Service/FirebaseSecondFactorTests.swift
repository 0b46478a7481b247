// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// TOTP through the Firebase API's v2 routes, on authsh's rules: enrolment by a recent login,
/// a password sign-in answered with `mfaPendingCredential` and completed by a code, withdrawal
/// only by a login that used the factor; one factor for both APIs.
@Suite(.timeLimit(.minutes(3))) struct FirebaseSecondFactorTests {
    static func v2(_ c: Client, _ method: String, _ body: EJSON) async throws -> Reply {
        try await c.call(.post, "/identitytoolkit.googleapis.com/v2/accounts/\(method)?key=k", json: body)
    }

    static func signIn(_ c: Client, _ email: String, _ password: String = "password1") async throws -> Reply {
        try await FirebaseAPITests.call(c, "signInWithPassword", ["email": .string(email), "password": .string(password)])
    }

    @Test func totpEnrolsAndCompletesASignIn() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let up = try await FirebaseAPITests.call(c, "signUp", ["email": "mf@example.com", "password": "password1"])
            let start = try await Self.v2(c, "mfaEnrollment:start", ["idToken": up.body["idToken"]!, "totpEnrollmentInfo": [:]])
            #expect(start.status == 200, "\(start.body)")
            let info = try #require(start.body["totpSessionInfo"])
            #expect(info["hashingAlgorithm"] == "SHA1" && info["verificationCodeLength"] == 6 && info["periodSec"] == 30)
            let secret = try #require(info["sharedSecretKey"]?.stringValue)
            let totp = try #require(TOTP(base32: secret))
            var now = try await TOTPHarness.now(c)
            let verification: (String) -> EJSON = { code in ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(code)] }
            FirebaseAPITests.expectError(
                try await Self.v2(
                    c, "mfaEnrollment:finalize", ["idToken": up.body["idToken"]!, "totpVerificationInfo": verification(totp.code(at: now - 600))]),
                400, "INVALID_CODE")
            let enrolled = try await Self.v2(
                c, "mfaEnrollment:finalize", ["idToken": up.body["idToken"]!, "totpVerificationInfo": verification(totp.code(at: now))])
            #expect(enrolled.status == 200 && enrolled["idToken"] != nil && enrolled["refreshToken"] != nil, "\(enrolled.body)")
            #expect(enrolled.body["recoveryCodes"]?.arrayValue?.count == 10)
            // New tokens: the session of before ended.
            FirebaseAPITests.expectError(try await FirebaseAPITests.call(c, "lookup", ["idToken": up.body["idToken"]!]), 400, "INVALID_ID_TOKEN")

            // A password sign-in now waits for a code.
            let first = try await Self.signIn(c, "mf@example.com")
            #expect(first.status == 200 && first["idToken"] == nil && first["localId"] == up["localId"], "\(first.body)")
            #expect(first.body["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"] == "totp")
            let pending = try #require(first["mfaPendingCredential"])
            now = try await TOTPHarness.now(c, advancing: 30)
            let finish: (String) -> EJSON = { code in
                ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": "totp", "totpVerificationInfo": ["verificationCode": .string(code)]]
            }
            FirebaseAPITests.expectError(try await Self.v2(c, "mfaSignIn:finalize", finish(totp.code(at: now - 600))), 400, "INVALID_CODE")
            let done = try await Self.v2(c, "mfaSignIn:finalize", finish(totp.code(at: now)))
            #expect(done.status == 200, "\(done.body)")
            let claims = try FirebaseAPITests.parts(done["idToken"]).claims
            #expect(claims["firebase"]?["sign_in_second_factor"] == "totp" && claims["sub"]?.stringValue == up["localId"])
            // Used once.
            FirebaseAPITests.expectError(
                try await Self.v2(c, "mfaSignIn:finalize", finish(totp.code(at: now))), 400, "INVALID_MFA_PENDING_CREDENTIAL")

            // A recovery code of the enrolment's answers in place of a TOTP code, once.
            let recovery = try #require(enrolled.body["recoveryCodes"]?.arrayValue?.first?.stringValue)
            let byRecovery = try #require(try await Self.signIn(c, "mf@example.com")["mfaPendingCredential"])
            let recovered = try await Self.v2(
                c, "mfaSignIn:finalize",
                ["mfaPendingCredential": .string(byRecovery), "totpVerificationInfo": ["verificationCode": .string(recovery)]])
            #expect(recovered.status == 200 && recovered["idToken"] != nil, "\(recovered.body)")
            let replayed = try #require(try await Self.signIn(c, "mf@example.com")["mfaPendingCredential"])
            FirebaseAPITests.expectError(
                try await Self.v2(
                    c, "mfaSignIn:finalize",
                    ["mfaPendingCredential": .string(replayed), "totpVerificationInfo": ["verificationCode": .string(recovery)]]),
                400, "INVALID_CODE")

            // Withdrawing needs a login that used the factor: not the enrolment's session.
            FirebaseAPITests.expectError(
                try await Self.v2(c, "mfaEnrollment:withdraw", ["idToken": enrolled.body["idToken"]!, "mfaEnrollmentId": "totp"]), 400,
                "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let withdrawn = try await Self.v2(c, "mfaEnrollment:withdraw", ["idToken": done.body["idToken"]!, "mfaEnrollmentId": "totp"])
            #expect(withdrawn.status == 200 && withdrawn["idToken"] != nil, "\(withdrawn.body)")
            let plain = try await Self.signIn(c, "mf@example.com")
            #expect(plain.status == 200 && plain["idToken"] != nil && plain["mfaPendingCredential"] == nil, "\(plain.body)")
        }
    }

    /// A factor enrolled through App Services asks for its code through Firebase too.
    @Test func oneFactorForBothAPIs() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (_, totp, _) = try await TOTPHarness.enrolled(c, "both@example.com")
            let first = try await Self.signIn(c, "both@example.com")
            let pending = try #require(first["mfaPendingCredential"], "\(first.body)")
            let now = try await TOTPHarness.now(c, advancing: 30)
            let done = try await Self.v2(
                c, "mfaSignIn:finalize",
                ["mfaPendingCredential": .string(pending), "totpVerificationInfo": ["verificationCode": .string(totp.code(at: now))]])
            #expect(done.status == 200 && done["idToken"] != nil, "\(done.body)")
        }
    }

    @Test func unknownCredentialsAndFactorsAreRefused() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let up = try await FirebaseAPITests.call(c, "signUp", ["email": "ph@example.com", "password": "password1"])
            FirebaseAPITests.expectError(
                try await Self.v2(c, "mfaSignIn:start", ["mfaPendingCredential": "x"]), 400, "MISSING_MFA_ENROLLMENT_ID")
            FirebaseAPITests.expectError(
                try await Self.v2(c, "mfaSignIn:start", ["mfaPendingCredential": "x", "mfaEnrollmentId": "phone-1"]), 400,
                "INVALID_MFA_PENDING_CREDENTIAL")
            FirebaseAPITests.expectError(
                try await Self.v2(c, "mfaSignIn:finalize", ["mfaPendingCredential": "nope", "totpVerificationInfo": ["verificationCode": "123456"]]),
                400, "INVALID_MFA_PENDING_CREDENTIAL")
            FirebaseAPITests.expectError(
                try await Self.v2(c, "mfaEnrollment:withdraw", ["idToken": up.body["idToken"]!, "mfaEnrollmentId": "phone-1"]), 400,
                "MFA_ENROLLMENT_NOT_FOUND")
            FirebaseAPITests.expectError(try await Self.v2(c, "mfaSignIn:elsewhere", [:]), 404, "Method not found.")
        }
    }
}
