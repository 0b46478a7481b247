// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// Firebase's phone sign-in through HTTP: `accounts:sendVerificationCode` and
/// `accounts:signInWithPhoneNumber`, the emulator's `verificationCodes` in dev mode, linking and
/// unlinking a number, and outside dev mode the `sendSms` hook, test numbers and rate limits.
@Suite(.timeLimit(.minutes(3))) struct FirebasePhoneTests {
    typealias API = FirebaseAPITests

    /// The emulator's `verificationCodes` of the project.
    static func codes(_ c: Client) async throws -> [EJSON] {
        let listed = try await c.call(.get, "/emulator/v1/projects/local/verificationCodes")
        #expect(listed.status == 200, "\(listed.body)")
        return listed.body["verificationCodes"]?.arrayValue ?? []
    }

    /// A code sent to `number` in dev mode: its `sessionInfo` and the code listed for it.
    static func send(_ c: Client, _ number: String) async throws -> (sessionInfo: EJSON, code: EJSON) {
        let sent = try await API.call(c, "sendVerificationCode", ["phoneNumber": .string(number), "recaptchaToken": "ignored"])
        #expect(sent.status == 200, "\(sent.body)")
        let sessionInfo = try #require(sent.body["sessionInfo"])
        let listed = try #require(try await codes(c).last { $0["sessionInfo"] == sessionInfo })
        #expect(listed["phoneNumber"]?.stringValue == number)
        return (sessionInfo, try #require(listed["code"]))
    }

    @Test func aTextedCodeSignsInOnceAndTheNumberIsTheUsers() async throws {
        try await TestServer.run { c in
            for bad in ["12345", "+0123456789", "+1 555 0100", "+1234567890123456"] {
                API.expectError(try await API.call(c, "sendVerificationCode", ["phoneNumber": .string(bad)]), 400, "INVALID_PHONE_NUMBER")
            }
            let (sessionInfo, code) = try await Self.send(c, "+15550100001")
            #expect(code.stringValue?.utf8.count == 6)
            let wrong = code.stringValue == "000000" ? "000001" : "000000"
            API.expectError(
                try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": sessionInfo, "code": .string(wrong)]), 400, "INVALID_CODE")
            API.expectError(try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": "made-up", "code": code]), 400, "INVALID_SESSION_INFO")
            let inside = try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": sessionInfo, "code": code])
            #expect(inside.status == 200 && inside["phoneNumber"] == "+15550100001" && inside.body["isNewUser"] == true, "\(inside.body)")
            let claims = try API.parts(inside["idToken"]).claims
            #expect(claims["phone_number"] == "+15550100001" && claims["firebase"]?["sign_in_provider"] == "phone", "\(claims)")
            #expect(claims["firebase"]?["identities"]?["phone"] == ["+15550100001"])
            API.expectError(
                try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": sessionInfo, "code": code]), 400, "INVALID_SESSION_INFO")

            // The same number again: the same user.
            let (again, againCode) = try await Self.send(c, "+15550100001")
            let back = try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": again, "code": againCode])
            #expect(back["localId"] == inside["localId"] && back.body["isNewUser"] == false, "\(back.body)")
            let found = try await API.call(c, "lookup", ["idToken": back.body["idToken"]!])
            let user = try #require(found.body["users"]?.arrayValue?.first)
            #expect(user["phoneNumber"] == "+15550100001", "\(user)")
            #expect(user["providerUserInfo"]?.arrayValue?.first?["providerId"] == "phone")
        }
    }

    /// With an `idToken`, the number is linked to its user; a number another user holds is
    /// refused; `deleteProvider` unlinks it.
    @Test func aNumberLinksToAUserAndUnlinks() async throws {
        try await TestServer.run { c in
            let up = try await API.call(c, "signUp", ["email": "tel@example.com", "password": "password1"])
            let (sessionInfo, code) = try await Self.send(c, "+15550100002")
            let linked = try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": sessionInfo, "code": code, "idToken": up.body["idToken"]!])
            #expect(linked.status == 200 && linked["localId"] == up["localId"] && linked.body["isNewUser"] == false, "\(linked.body)")
            let claims = try API.parts(linked["idToken"]).claims
            #expect(claims["phone_number"] == "+15550100002" && claims["email"] == "tel@example.com", "\(claims)")

            // Another user's number.
            let other = try await API.call(c, "signUp", ["email": "other@example.com", "password": "password1"])
            let (second, secondCode) = try await Self.send(c, "+15550100002")
            API.expectError(
                try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": second, "code": secondCode, "idToken": other.body["idToken"]!]),
                400, "PHONE_NUMBER_EXISTS")

            let unlinked = try await API.call(c, "update", ["idToken": linked.body["idToken"]!, "deleteProvider": ["phone"]])
            #expect(unlinked.status == 200 && unlinked["phoneNumber"] == nil, "\(unlinked.body)")
            let (third, thirdCode) = try await Self.send(c, "+15550100002")
            let alone = try await API.call(c, "signInWithPhoneNumber", ["sessionInfo": third, "code": thirdCode])
            #expect(alone.body["isNewUser"] == true && alone["localId"] != up["localId"], "\(alone.body)")
        }
    }

    static let texter = """
        local m = {}
        function m.texter(event)
          if event.phoneNumber == "+15550100099" then error("this number is blocked") end
          context.store.set("last", { number = event.phoneNumber, code = event.code, api = event.api, message = event.message })
        end
        function m.lastText() return context.store.get("last") end
        return m
        """

    /// Outside dev mode a text goes through the app's `sendSms` hook (no hook: no texts, but the
    /// test numbers the app lists), within the `sms` rate limit per number.
    @Test func outsideDevModeTextsGoThroughTheHook() async throws {
        let directory = Scratch.path("phone")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plugins = try PluginDirectory(["texts.lua": Self.texter])
        var app = AppConfiguration(id: "local")
        app.firebase = FirebaseConfiguration(projectId: "phones", apiKeys: ["phone-key"])
        var phone = AppConfiguration.Phone()
        phone.testNumbers = ["+15555550100": "123456"]
        phone.allowedRegions = ["+1555"]
        app.providers.phone = phone
        app.rateLimits.enabled = true
        app.rateLimits.limits[.sms] = .init(perAddress: 100, perAccount: 2, windowSeconds: 3600)
        var plain = AppConfiguration(id: "plain")
        plain.firebase = FirebaseConfiguration(projectId: "plain", apiKeys: ["plain-key"])
        let config = TestServer.configuration(apps: [app, plain], database: .directory(directory), dev: false, plugins: plugins.path)
        try await TestServer.run(config) { c in
            func send(_ number: String) async throws -> Reply {
                try await API.call(c, "sendVerificationCode", key: "phone-key", ["phoneNumber": .string(number)])
            }
            API.expectError(try await send("+15550100003"), 400, "OPERATION_NOT_ALLOWED")
            // Another app of the server, which lists no phone provider.
            API.expectError(
                try await API.call(c, "sendVerificationCode", key: "plain-key", ["phoneNumber": "+15555550100"]), 400, "OPERATION_NOT_ALLOWED")
            #expect(try await c.call(.get, "/emulator/v1/projects/phones/verificationCodes").status == 404, "no emulator routes")

            // A test number: no text, its listed code.
            let test = try await send("+15555550100")
            #expect(test.status == 200, "\(test.body)")
            let inside = try await API.call(
                c, "signInWithPhoneNumber", key: "phone-key", ["sessionInfo": test.body["sessionInfo"]!, "code": "123456"])
            #expect(inside.status == 200 && inside["phoneNumber"] == "+15555550100", "\(inside.body)")

            let hooked = try await c.call(.patch, "\(Routes.dev)/apps/local/config", json: ["hooks": ["sendSms": "texter"]])
            #expect(hooked.status == 404, "no dev API outside dev mode")
        }
        var withHook = config
        withHook.apps[0].hooks.sendSms = "texter"
        try await TestServer.run(withHook) { c in
            func send(_ number: String) async throws -> Reply {
                try await API.call(c, "sendVerificationCode", key: "phone-key", ["phoneNumber": .string(number)])
            }
            let sent = try await send("+15550100004")
            #expect(sent.status == 200, "\(sent.body)")
            let token = try await c.anonymousToken()
            let last = try await c.function("lastText", token: token)
            #expect(last.body["number"] == "+15550100004" && last.body["api"] == "firebase", "\(last.body)")
            let code = try #require(last.body["code"])
            #expect(last.body["message"]?.stringValue?.contains(code.stringValue ?? "?") == true)
            let inside = try await API.call(c, "signInWithPhoneNumber", key: "phone-key", ["sessionInfo": sent.body["sessionInfo"]!, "code": code])
            #expect(inside.status == 200 && inside.body["isNewUser"] == true, "\(inside.body)")

            // A number outside the app's regions gets no text.
            let abroad = try await send("+8821234567")
            FirebaseAPITests.expectError(abroad, 400, "OPERATION_NOT_ALLOWED")
            #expect(abroad.body["error"]?["message"]?.stringValue?.contains("region") == true, "\(abroad.body)")
            #expect(try await c.function("lastText", token: token).body["number"] == "+15550100004", "the hook was not called")
            // The hook refuses a number; the rate limit per number holds.
            API.expectError(try await send("+15550100099"), 400, "BLOCKING_FUNCTION_ERROR_RESPONSE")
            #expect(try await send("+15550100004").status == 200)
            API.expectError(try await send("+15550100004"), 400, "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }
}
