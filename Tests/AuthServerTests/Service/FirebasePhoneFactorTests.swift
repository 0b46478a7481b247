// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// Phone numbers as second factors, through HTTP: enrolled with the v2 API's
/// `mfaEnrollment:start|finalize` (`phoneEnrollmentInfo`), asked for by every sign-in of the
/// user through both APIs (`mfaSignIn:start|finalize`; App Services' `mfa/sms` then
/// `mfa/login`), withdrawn by a login that used a factor; production Firebase's rules on who
/// may enrol; a phone that signed in never its own second factor; import through the Admin API.
@Suite(.timeLimit(.minutes(3))) struct FirebasePhoneFactorTests {
    typealias API = FirebaseAPITests
    typealias V2 = FirebaseSecondFactorTests

    /// The code texted last to `number`, as the emulator's `verificationCodes` list it, and its `sessionInfo`.
    static func lastCode(_ c: Client, _ number: String) async throws -> (code: String, sessionInfo: String) {
        let sent = try #require(try await FirebasePhoneTests.codes(c).last { $0["phoneNumber"]?.stringValue == number })
        return (try #require(sent["code"]?.stringValue), try #require(sent["sessionInfo"]?.stringValue))
    }

    /// A code other than `code`.
    static func wrong(_ code: String) -> String { code == "000000" ? "000001" : "000000" }

    /// A user with a proven email (confirmed through App Services), signed in through Firebase: the ID token.
    static func verifiedUser(_ c: Client, _ email: String) async throws -> String {
        try await c.registerConfirmed(email)
        let signedIn = try await V2.signIn(c, email)
        #expect(signedIn.status == 200, "\(signedIn.body)")
        #expect(try API.parts(signedIn["idToken"]).claims["email_verified"] == true)
        return try #require(signedIn["idToken"])
    }

    /// Enrols `number` for the user of `idToken`: the new ID token.
    static func enrol(_ c: Client, _ idToken: String, _ number: String, name: String? = nil) async throws -> String {
        let start = try await V2.v2(c, "mfaEnrollment:start", ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": .string(number)]])
        #expect(start.status == 200, "\(start.body)")
        let sessionInfo = try #require(start.body["phoneSessionInfo"]?["sessionInfo"]?.stringValue)
        let (code, listed) = try await lastCode(c, number)
        #expect(listed == sessionInfo)
        var body: EJSONDocument = [
            "idToken": .string(idToken), "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
        ]
        if let name { body["displayName"] = .string(name) }
        let done = try await V2.v2(c, "mfaEnrollment:finalize", .document(body))
        #expect(done.status == 200, "\(done.body)")
        return try #require(done["idToken"])
    }

    /// Completes the Firebase sign-in of `pending` by a code texted to the factor `enrollmentId`: the answer.
    static func finish(_ c: Client, _ pending: String, _ enrollmentId: String, number: String) async throws -> Reply {
        let started = try await V2.v2(c, "mfaSignIn:start", ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentId)])
        #expect(started.status == 200, "\(started.body)")
        let sessionInfo = try #require(started.body["phoneResponseInfo"]?["sessionInfo"]?.stringValue)
        let (code, _) = try await lastCode(c, number)
        return try await V2.v2(
            c, "mfaSignIn:finalize",
            ["mfaPendingCredential": .string(pending), "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)]])
    }

    @Test func aPhoneFactorEnrolsAndCompletesSignInsThroughBothAPIs() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let idToken = try await Self.verifiedUser(c, "pf@example.com")
            let number = "+15550100011"
            let start = try await V2.v2(
                c, "mfaEnrollment:start", ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": .string(number)]])
            let sessionInfo = try #require(start.body["phoneSessionInfo"]?["sessionInfo"], "\(start.body)")
            let (code, _) = try await Self.lastCode(c, number)
            let finalize: (String) -> EJSON = { code in
                [
                    "idToken": .string(idToken), "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(code)],
                    "displayName": "work phone",
                ]
            }
            API.expectError(try await V2.v2(c, "mfaEnrollment:finalize", finalize(Self.wrong(code))), 400, "INVALID_CODE")
            let enrolled = try await V2.v2(c, "mfaEnrollment:finalize", finalize(code))
            #expect(enrolled.status == 200 && enrolled["refreshToken"] != nil, "\(enrolled.body)")
            let newToken = try #require(enrolled["idToken"])
            // Once.
            API.expectError(
                try await V2.v2(
                    c, "mfaEnrollment:finalize",
                    ["idToken": .string(newToken), "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(code)]]),
                400, "INVALID_SESSION_INFO")
            let found = try await API.call(c, "lookup", ["idToken": .string(newToken)])
            let factor = try #require(found.body["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first, "\(found.body)")
            #expect(factor["phoneInfo"]?.stringValue == number && factor["displayName"] == "work phone", "\(factor)")
            let enrollmentId = try #require(factor["mfaEnrollmentId"]?.stringValue)

            // Firebase: the password alone waits for the phone; the number is shown obscured.
            let first = try await V2.signIn(c, "pf@example.com")
            #expect(first["idToken"] == nil, "\(first.body)")
            let pending = try #require(first["mfaPendingCredential"])
            let shown = try #require(first.body["mfaInfo"]?.arrayValue?.first)
            #expect(shown["phoneInfo"] == "+*******0011" && shown["mfaEnrollmentId"]?.stringValue == enrollmentId, "\(shown)")
            let started = try await V2.v2(c, "mfaSignIn:start", ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentId)])
            let signInSession = try #require(started.body["phoneResponseInfo"]?["sessionInfo"]?.stringValue, "\(started.body)")
            let (signInCode, _) = try await Self.lastCode(c, number)
            let answer: (String, String) -> EJSON = { session, code in
                ["mfaPendingCredential": .string(pending), "phoneVerificationInfo": ["sessionInfo": .string(session), "code": .string(code)]]
            }
            API.expectError(try await V2.v2(c, "mfaSignIn:finalize", answer(signInSession, Self.wrong(signInCode))), 400, "INVALID_CODE")
            API.expectError(try await V2.v2(c, "mfaSignIn:finalize", answer("another", signInCode)), 400, "INVALID_SESSION_INFO")
            let done = try await V2.v2(c, "mfaSignIn:finalize", answer(signInSession, signInCode))
            #expect(done.status == 200, "\(done.body)")
            let claims = try API.parts(done["idToken"]).claims
            #expect(
                claims["firebase"]?["sign_in_second_factor"] == "phone"
                    && claims["sub"]?.stringValue == found.body["users"]?.arrayValue?.first?["localId"]?.stringValue)
            API.expectError(
                try await V2.v2(
                    c, "mfaEnrollment:start", ["idToken": done.body["idToken"]!, "phoneEnrollmentInfo": ["phoneNumber": .string(number)]]),
                400, "SECOND_FACTOR_EXISTS")

            // App Services: the same factor, texted by mfa/sms and typed at mfa/login.
            let token = try await TOTPHarness.mfaToken(c, "pf@example.com")
            let step = try await c.emailLogin("pf@example.com", "password1")
            #expect(step.body["factors"] == ["phone"] && step.body["phones"]?.arrayValue?.first?["phoneNumber"] == "+*******0011", "\(step.body)")
            let texted = try await c.call(.post, Routes.base + "/app/local/auth/providers/mfa/sms", json: ["mfaToken": .string(token)])
            #expect(texted.status == 200 && texted["phoneNumber"] == "+*******0011", "\(texted.body)")
            let (appCode, _) = try await Self.lastCode(c, number)
            let wrongOne = try await TOTPHarness.complete(c, token, Self.wrong(appCode))
            #expect(wrongOne.status == 401 && wrongOne.code == "InvalidMFACode", "\(wrongOne.body)")
            let loggedIn = try await TOTPHarness.complete(c, token, appCode)
            #expect(loggedIn.status == 200, "\(loggedIn.body)")
            #expect(try TOTPHarness.amr(loggedIn["access_token"]) == ["pwd", "sms", "mfa"])
            // A code texted for one login completes no other.
            let other = try await TOTPHarness.mfaToken(c, "pf@example.com")
            let replay = try await TOTPHarness.complete(c, other, appCode)
            #expect(replay.status == 401 && replay["access_token"] == nil, "\(replay.body)")
        }
    }

    /// A session that never used the second factor adds none (a stolen one would add its own),
    /// makes no API key, and withdraws nothing; a login that used the phone withdraws it.
    @Test func onlyALoginThatUsedAFactorChangesFactors() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let idToken = try await Self.verifiedUser(c, "stolen@example.com")
            // Another session, from before the enrolment (recent, but without the factor).
            let before = try #require(try await V2.signIn(c, "stolen@example.com")["idToken"])
            let old = try await c.emailLogin("stolen@example.com", "password1")
            let enrolled = try await Self.enrol(c, idToken, "+15550100021")
            let enrollmentId = try #require(
                try await API.call(c, "lookup", ["idToken": .string(enrolled)]).body["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first?[
                    "mfaEnrollmentId"]?.stringValue)

            API.expectError(
                try await V2.v2(c, "mfaEnrollment:start", ["idToken": .string(before), "phoneEnrollmentInfo": ["phoneNumber": "+15550100022"]]),
                400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            API.expectError(
                try await V2.v2(c, "mfaEnrollment:start", ["idToken": .string(before), "totpEnrollmentInfo": [:]]), 400,
                "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let totp = try await c.call(.post, TOTPHarness.mfa + "/totp", token: old["access_token"])
            #expect(totp.status == 401 && totp.code == "RequiresRecentLogin", "\(totp.body)")
            let key = try await c.call(.post, Routes.base + "/auth/api_keys", json: ["name": "k"], token: old["refresh_token"])
            #expect(key.status == 401 && key.code == "RequiresRecentLogin", "\(key.body)")
            API.expectError(
                try await V2.v2(c, "mfaEnrollment:withdraw", ["idToken": .string(before), "mfaEnrollmentId": .string(enrollmentId)]), 400,
                "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")

            let first = try await V2.signIn(c, "stolen@example.com")
            let done = try await Self.finish(c, try #require(first["mfaPendingCredential"]), enrollmentId, number: "+15550100021")
            let used = try #require(done["idToken"], "\(done.body)")
            API.expectError(
                try await V2.v2(c, "mfaEnrollment:withdraw", ["idToken": .string(used), "mfaEnrollmentId": "no-such-factor"]), 400,
                "MFA_ENROLLMENT_NOT_FOUND")
            let withdrawn = try await V2.v2(c, "mfaEnrollment:withdraw", ["idToken": .string(used), "mfaEnrollmentId": .string(enrollmentId)])
            #expect(withdrawn.status == 200 && withdrawn["idToken"] != nil, "\(withdrawn.body)")
            let plain = try await V2.signIn(c, "stolen@example.com")
            #expect(plain["idToken"] != nil && plain["mfaPendingCredential"] == nil, "\(plain.body)")
        }
    }

    /// Production Firebase's rules: a proven email, and no enrolment after an anonymous or
    /// phone sign-in; a number enrolled once. A phone that signed in is never its own second
    /// factor: a user whose only factor is a phone signs in by phone no further.
    @Test func whoMayEnrolAndAPhoneNeverAnswersForItself() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let unverified = try await API.call(c, "signUp", ["email": "nov@example.com", "password": "password1"])
            API.expectError(
                try await V2.v2(
                    c, "mfaEnrollment:start", ["idToken": unverified.body["idToken"]!, "phoneEnrollmentInfo": ["phoneNumber": "+15550100031"]]),
                400, "UNVERIFIED_EMAIL")
            let anonymous = try await API.call(c, "signUp", [:])
            API.expectError(
                try await V2.v2(
                    c, "mfaEnrollment:start", ["idToken": anonymous.body["idToken"]!, "phoneEnrollmentInfo": ["phoneNumber": "+15550100031"]]),
                400, "UNSUPPORTED_FIRST_FACTOR")

            let idToken = try await Self.verifiedUser(c, "self@example.com")
            API.expectError(
                try await V2.v2(c, "mfaEnrollment:start", ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "555"]]), 400,
                "INVALID_PHONE_NUMBER")
            // The user signs in by phone too (the number linked), and enrols it as a factor.
            let (sessionInfo, code) = try await FirebasePhoneTests.send(c, "+15550100032")
            let linked = try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": sessionInfo, "code": code, "idToken": .string(idToken)])
            #expect(linked.status == 200, "\(linked.body)")
            let byPassword = try #require(try await V2.signIn(c, "self@example.com")["idToken"])
            let enrolled = try await Self.enrol(c, byPassword, "+15550100032")
            #expect(try API.parts(enrolled).claims["sub"] != nil)
            // A phone sign-in: its only factor is a phone, which cannot answer for itself.
            let (again, againCode) = try await FirebasePhoneTests.send(c, "+15550100032")
            let byPhone = try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": again, "code": againCode])
            #expect(byPhone["idToken"] == nil && byPhone.status == 400, "\(byPhone.body)")
            #expect(byPhone.body["error"]?["message"]?.stringValue?.hasPrefix("UNSUPPORTED_FIRST_FACTOR") == true, "\(byPhone.body)")
        }
    }

    /// An administrator lists a user's phone factors and removes one (a lost phone), audited
    /// with the key's name; the next sign-in needs no code.
    @Test func anAdministratorRemovesALostPhone() async throws {
        try await AdminHarness.withServer { c, _ in
            let idToken = try await Self.verifiedUser(c, "lost@example.com")
            let enrolled = try await Self.enrol(c, idToken, "+15550100071", name: "old phone")
            let userId = try #require(try API.parts(enrolled).claims["sub"]?.stringValue)
            let listed = try await AdminHarness.admin(c, .get, "/users/\(userId)/factors")
            let phone = try #require(listed.body["factors"]?.arrayValue?.first, "\(listed.body)")
            #expect(phone["type"] == "phone" && phone["phoneNumber"] == "+15550100071" && phone["displayName"] == "old phone")
            let id = try #require(phone["id"]?.stringValue)
            #expect(try await AdminHarness.admin(c, .delete, "/users/\(userId)/factors/phone/nope").code == "MFAFactorNotFound")
            let removed = try await AdminHarness.admin(c, .delete, "/users/\(userId)/factors/phone/\(id)")
            #expect(removed.status == 200 && removed["removed"] == "phone" && removed["enrollmentId"] == id, "\(removed.body)")
            let events = try #require(try await AdminHarness.admin(c, .get, "/users/\(userId)").body["audit"]?.arrayValue)
            #expect(events.contains { $0["event"] == "phone_factor_removed" && $0["actor"] == "admin:ops" }, "\(events)")
            let plain = try await V2.signIn(c, "lost@example.com")
            #expect(plain["idToken"] != nil && plain["mfaPendingCredential"] == nil, "\(plain.body)")
        }
    }

    /// The Admin API imports phone factors (`mfaInfo`), shows them (`lookup`), and an imported
    /// factor is asked for at the next sign-in.
    @Test func anImportedPhoneFactorIsAskedFor() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let admin = "/identitytoolkit.googleapis.com/v1/projects/local/accounts"
            let owner = [("Authorization", "Bearer owner")]
            let user: EJSON = [
                "localId": "imported-1", "email": "imp@example.com", "emailVerified": true,
                "mfaInfo": [
                    ["phoneInfo": "+15550100041", "mfaEnrollmentId": "enrol-1", "displayName": "old phone", "enrolledAt": "2024-05-01T10:00:00Z"]
                ],
            ]
            let imported = try await c.call(.post, admin + ":batchCreate", json: ["users": [user]], headers: owner)
            #expect(imported.status == 200 && imported.body["error"] == [], "\(imported.body)")
            let bad: EJSON = ["localId": "imported-2", "mfaInfo": [["totpInfo": [:]]]]
            let refused = try await c.call(.post, admin + ":batchCreate", json: ["users": [bad]], headers: owner)
            #expect(refused.body["error"]?.arrayValue?.first?["message"]?.stringValue?.contains("phone factors") == true, "\(refused.body)")

            let shown = try await c.call(.post, admin + ":lookup", json: ["localId": ["imported-1"]], headers: owner)
            let factor = try #require(shown.body["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first, "\(shown.body)")
            #expect(factor["phoneInfo"] == "+15550100041" && factor["mfaEnrollmentId"] == "enrol-1" && factor["displayName"] == "old phone")
            #expect(factor["enrolledAt"] == "2024-05-01T10:00:00Z", "\(factor)")

            // A password set by the Admin API; the sign-in then waits for the imported phone.
            let set = try await c.call(.post, admin + ":update", json: ["localId": "imported-1", "password": "password1"], headers: owner)
            #expect(set.status == 200, "\(set.body)")
            let first = try await V2.signIn(c, "imp@example.com")
            let done = try await Self.finish(c, try #require(first["mfaPendingCredential"], "\(first.body)"), "enrol-1", number: "+15550100041")
            #expect(try API.parts(done["idToken"]).claims["firebase"]?["sign_in_second_factor"] == "phone", "\(done.body)")
        }
    }
}
