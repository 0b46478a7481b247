// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import TestSupport
import Testing

/// Phone second factors from the client: enrolled over Firebase's v2 API, then the texted code
/// completing a login over both protocols (`sendPhoneCode`, then `.mfa(token:code:)`), and
/// removed by a login that used it; what App Services' API has not refused naming it.
@Suite(.timeLimit(.minutes(3))) struct PhoneFactorClientTests {
    static let number = "+15555550100"

    /// The last code texted to `number`, as the Auth emulator lists it (`verificationCodes`).
    static func lastText(_ h: Harness) async throws -> String {
        let response = try await AsyncHTTPTransport().send(
            TransportRequest(
                method: "GET", url: h.origin + "/emulator/v1/projects/local/verificationCodes", headers: [], body: nil,
                timeout: .seconds(60)))
        let texts = try EJSON(parsing: response.body)["verificationCodes"]?.arrayValue ?? []
        return try #require(texts.last { $0["phoneNumber"]?.stringValue == number }?["code"]?.stringValue)
    }

    @Test func aPhoneFactorCompletesLoginsOverBothProtocols() async throws {
        try await LiveServer.run { h in
            let services = try h.app()
            try await h.registerConfirmed(services, "ph@example.com")
            let app = try FirebaseClientTests.app(h)
            let user = try await app.login(credentials: .emailPassword(email: "ph@example.com", password: "password1"))
            try await user.secondFactors.enrollPhone(Self.number)
            try await user.secondFactors.confirmPhone(code: try await Self.lastText(h), displayName: "work phone")
            let phone = try #require(try await user.secondFactors.list().factors.first)
            #expect(phone.type == "phone" && phone.phoneNumber == Self.number && phone.enrollmentId != nil, "\(phone)")

            // Over Firebase: MFARequired, the text, the code.
            var pending: AuthClientError?
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "ph@example.com", password: "password1"))
                Issue.record("the password alone signed in")
            } catch {
                pending = error
            }
            let firebaseStep = try #require(pending)
            #expect(firebaseStep.code == "MFARequired" && firebaseStep.factors == ["phone"], "\(firebaseStep)")
            let shown = try await app.sendPhoneCode(firebaseStep)
            #expect(shown.hasSuffix("0100") && !shown.contains("555555"), "the number is obscured: \(shown)")
            let second = try await app.login(
                credentials: .mfa(token: try #require(firebaseStep.mfaToken), code: try await Self.lastText(h)))
            #expect(second.id == user.id && second.accessTokenClaims?["firebase"]?["sign_in_second_factor"] == "phone")

            // Over App Services: the same factor, texted through its route.
            pending = nil
            do throws(AuthClientError) {
                try await services.login(credentials: .emailPassword(email: "ph@example.com", password: "password1"))
                Issue.record("the password alone logged in over App Services")
            } catch {
                pending = error
            }
            let servicesStep = try #require(pending)
            #expect(servicesStep.code == "MFARequired" && servicesStep.factors.contains("phone"), "\(servicesStep)")
            #expect(try await services.sendPhoneCode(servicesStep).hasSuffix("0100"))
            let viaServices = try await services.login(
                credentials: .mfa(token: try #require(servicesStep.mfaToken), code: try await Self.lastText(h)))
            #expect(viaServices.id == user.id)

            // A wrong code is refused over Firebase, and the login stays for the right one.
            pending = nil
            do throws(AuthClientError) {
                try await app.login(credentials: .emailPassword(email: "ph@example.com", password: "password1"))
            } catch {
                pending = error
            }
            let again = try #require(pending)
            try await app.sendPhoneCode(again)
            let code = try await Self.lastText(h)
            let token = try #require(again.mfaToken)
            do throws(AuthClientError) {
                try await app.login(credentials: .mfa(token: token, code: code == "000000" ? "111111" : "000000"))
                Issue.record("a wrong code completed the login")
            } catch {
                #expect(error.firebaseCode == "auth/invalid-verification-code", "\(error)")
            }
            #expect(try await app.login(credentials: .mfa(token: token, code: code)).id == user.id, "the right code, next")

            // Removed by a login that used it; then the password alone signs in.
            try await second.secondFactors.removePhone(enrollmentId: try #require(phone.enrollmentId))
            #expect(try await second.secondFactors.list().factors.isEmpty)
            #expect(try await app.login(credentials: .emailPassword(email: "ph@example.com", password: "password1")).id == user.id)

            // App Services' API has no phone enrolment.
            do throws(AuthClientError) {
                try await viaServices.secondFactors.enrollPhone(Self.number)
                Issue.record("a phone was enrolled over App Services")
            } catch {
                #expect(error.code == AuthClientError.notInProtocol && error.message.contains("App Services"), "\(error)")
            }
        }
    }
}
