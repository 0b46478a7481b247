// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import Synchronization
import TestSupport
import Testing

/// TOTP second factors through HTTP: enrolment, the two-step login, replayed and wrong codes,
/// recovery codes, removal, the `amr` claim and the back-off, with the dev clock.
@Suite(.timeLimit(.minutes(5))) struct TOTPTests {
    @Test func enrolmentThenLoginsNeedACurrentCodeOnce() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            try await c.registerConfirmed("t@example.com")
            let first = try await c.emailLogin("t@example.com", "password1")
            let access = try #require(first["access_token"])
            #expect(try TOTPHarness.amr(access) == ["pwd"])
            #expect(try await c.call(.get, TOTPHarness.mfa, token: access).body["factors"]?.arrayValue?.isEmpty == true)

            let started = try await c.call(.post, TOTPHarness.mfa + "/totp", token: access)
            #expect(started.status == 201, "\(started.body)")
            let secret = try #require(started["secret"])
            #expect(Base32.decode(secret)?.count == 20)
            #expect(
                started["uri"]
                    == "otpauth://totp/Acme%20Inc:t%40example.com?secret=\(secret)&issuer=Acme%20Inc&algorithm=SHA1&digits=6&period=30")
            let totp = try #require(TOTP(base32: secret))
            // Until it is confirmed, the factor changes no login.
            #expect(try await c.emailLogin("t@example.com", "password1").status == 200)

            let now = try await TOTPHarness.now(c)
            let wrong = try await c.call(.post, TOTPHarness.mfa + "/totp/confirm", json: ["code": .string(totp.code(at: now + 600))], token: access)
            #expect(wrong.status == 400 && wrong.code == "InvalidMFACode", "\(wrong.body)")
            let confirmed = try await c.call(.post, TOTPHarness.mfa + "/totp/confirm", json: ["code": .string(totp.code(at: now))], token: access)
            #expect(confirmed.status == 200, "\(confirmed.body)")
            let recovery = try #require(confirmed.body["recoveryCodes"]?.arrayValue).compactMap(\.stringValue)
            #expect(recovery.count == 10 && Set(recovery).count == 10)
            #expect(recovery.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" })
            let again = try await c.call(.post, TOTPHarness.mfa + "/totp/confirm", json: ["code": .string(totp.code(at: now))], token: access)
            #expect(again.status == 404 && again.code == "MFAFactorNotFound", "\(again.body)")
            #expect(try await c.call(.post, TOTPHarness.mfa + "/totp", token: access).code == "MFAFactorExists")
            let listed = try await c.call(.get, TOTPHarness.mfa, token: access).body
            let factor = listed["factors"]?.arrayValue?.first
            #expect(factor?["type"] == "totp" && factor?["confirmed"] == true, "\(listed)")
            #expect(listed["recoveryCodes"]?.integerValue == 10)

            // The password alone no longer logs in.
            let challenged = try await c.emailLogin("t@example.com", "password1")
            #expect(challenged.status == 401 && challenged.code == "MFARequired", "\(challenged.body)")
            #expect(challenged.body["factors"] == ["totp", "recovery_code"])
            let token = try #require(challenged["mfaToken"])

            // The confirming code's step is spent: the same code does not log in.
            let replayed = try await TOTPHarness.complete(c, token, totp.code(at: now))
            #expect(replayed.status == 401 && replayed.code == "InvalidMFACode", "\(replayed.body)")
            #expect(replayed.message?.contains("4 attempts left") == true, "\(replayed.body)")

            let later = try await TOTPHarness.now(c, advancing: 30)
            let done = try await TOTPHarness.complete(c, token, totp.code(at: later))
            #expect(done.status == 200, "\(done.body)")
            #expect(try TOTPHarness.amr(done["access_token"]) == ["pwd", "otp", "mfa"])
            #expect(done["user_id"] == first["user_id"])
            let refreshed = try await c.refresh(try #require(done["refresh_token"]))
            #expect(try TOTPHarness.amr(refreshed["access_token"]) == ["pwd", "otp", "mfa"], "a refresh keeps how the login was made")

            // The token is spent, and so is the code, on a fresh token too.
            #expect(try await TOTPHarness.complete(c, token, totp.code(at: later)).code == "InvalidSession")
            let second = try await TOTPHarness.mfaToken(c, "t@example.com")
            #expect(try await TOTPHarness.complete(c, second, totp.code(at: later)).code == "InvalidMFACode")
            // A token is one app's.
            #expect(try await TOTPHarness.complete(c.inApp("other"), second, totp.code(at: later)).status != 200)
        }
    }

    @Test func aTokenTakesFiveWrongCodesThenIsSpent() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (_, totp, _) = try await TOTPHarness.enrolled(c, "w@example.com")
            let token = try await TOTPHarness.mfaToken(c, "w@example.com")
            for left in (0..<5).reversed() {
                let wrong = try await TOTPHarness.complete(c, token, "000000" == totp.code(at: try await TOTPHarness.now(c)) ? "111111" : "000000")
                #expect(wrong.code == "InvalidMFACode" && wrong.message?.contains(left == 0 ? "log in again" : "\(left) attempt") == true)
            }
            let now = try await TOTPHarness.now(c, advancing: 30)
            #expect(try await TOTPHarness.complete(c, token, totp.code(at: now)).code == "InvalidSession")
            #expect(try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "w@example.com"), totp.code(at: now)).status == 200)
        }
    }

    @Test func recoveryCodesLogInOnceEach() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (_, _, recovery) = try await TOTPHarness.enrolled(c, "r@example.com")
            let done = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "r@example.com"), recovery[3].uppercased())
            #expect(done.status == 200, "\(done.body)")
            #expect(try TOTPHarness.amr(done["access_token"]) == ["pwd", "otp", "mfa"])
            let reused = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "r@example.com"), recovery[3])
            #expect(reused.code == "InvalidMFACode" && reused.message?.hasPrefix("unknown or used recovery code") == true)
            let listed = try await c.call(.get, TOTPHarness.mfa, token: try #require(done["access_token"])).body
            #expect(listed["recoveryCodes"]?.integerValue == 9)

            // New codes replace the old ones: the old ones log in no more.
            let fresh = try await c.call(.post, TOTPHarness.mfa + "/recovery_codes", token: try #require(done["access_token"]))
            #expect(fresh.status == 201 && fresh.body["recoveryCodes"]?.arrayValue?.count == 10, "\(fresh.body)")
            #expect(try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "r@example.com"), recovery[4]).code == "InvalidMFACode")
        }
    }

    @Test func removingTheFactorNeedsARecentLoginThatUsedIt() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (before, totp, _) = try await TOTPHarness.enrolled(c, "x@example.com")
            // The session from before the enrolment used no second factor.
            let refused = try await c.call(.delete, TOTPHarness.mfa + "/totp", token: before)
            #expect(refused.status == 401 && refused.code == "RequiresRecentLogin", "\(refused.body)")
            #expect(try await c.call(.post, TOTPHarness.mfa + "/recovery_codes", token: before).code == "RequiresRecentLogin")

            let now = try await TOTPHarness.now(c, advancing: 30)
            let done = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "x@example.com"), totp.code(at: now))
            let access = try #require(done["access_token"])
            try await TOTPHarness.now(c, advancing: 601)
            #expect(try await c.call(.delete, TOTPHarness.mfa + "/totp", token: access).code == "RequiresRecentLogin", "too old")

            let recent = try await TOTPHarness.now(c, advancing: 30)
            let fresh = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "x@example.com"), totp.code(at: recent))
            let removed = try await c.call(.delete, TOTPHarness.mfa + "/totp", token: try #require(fresh["access_token"]))
            #expect(removed.status == 200, "\(removed.body)")
            #expect(try await c.emailLogin("x@example.com", "password1").status == 200, "the password alone logs in again")
            #expect(try await c.call(.delete, TOTPHarness.mfa + "/totp", token: try #require(fresh["access_token"])).code == "MFAFactorNotFound")
        }
    }

    @Test func enrolmentIsTheAppsChoiceAndNeedsARecentLogin() async throws {
        // Off without the key outside dev mode, and with it set to false in dev mode.
        var off = AppConfiguration(id: "local")
        off.mfa.totpEnabled = false
        for config in [TestServer.configuration(dev: false), TestServer.configuration(apps: [off])] {
            try await TestServer.run(config) { c in
                let access = try #require(try await c.anonymous()["access_token"])
                let refused = try await c.call(.post, TOTPHarness.mfa + "/totp", token: access)
                #expect(refused.status == 400 && refused.message?.contains("mfa.totp.enabled") == true, "\(refused.body)")
            }
        }
        try await TestServer.run(TestServer.configuration()) { c in
            let access = try #require(try await c.anonymous()["access_token"])
            #expect(try await c.call(.post, TOTPHarness.mfa + "/totp", token: access).status == 201, "on by default in dev mode")
        }
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let access = try #require(try await c.anonymous()["access_token"])
            try await TOTPHarness.now(c, advancing: 601)
            let old = try await c.call(.post, TOTPHarness.mfa + "/totp", token: access)
            #expect(old.status == 401 && old.code == "RequiresRecentLogin", "\(old.body)")
            #expect(try await c.call(.post, TOTPHarness.mfa + "/totp").status == 401, "no token")
        }
    }

    @Test func apiKeysAndNewIdentitiesAreNotAskedForACode() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (_, totp, _) = try await TOTPHarness.enrolled(c, "k@example.com")
            let now = try await TOTPHarness.now(c, advancing: 30)
            let done = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "k@example.com"), totp.code(at: now))
            let key = try await c.call(.post, Routes.apiKeys, json: ["name": "ci"], token: try #require(done["refresh_token"]))
            let login = try await c.login("api-key", ["provider": "api-key", "key": .string(try #require(key["key"]))])
            #expect(login.status == 200 && login["user_id"] == done["user_id"], "\(login.body)")
            #expect(try TOTPHarness.amr(login["access_token"]) == nil)
        }
    }

    @Test func wrongCodesCountTowardsTheBackOff() async throws {
        let app = TOTPHarness.app { $0.rateLimits.enabled = true }
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let (_, totp, _) = try await TOTPHarness.enrolled(c, "b@example.com")
            var token = try await TOTPHarness.mfaToken(c, "b@example.com")
            // LoginBackoff's free failures, over two tokens, then each costs a wait.
            for attempt in 1...6 {
                if attempt == 6 { token = try await TOTPHarness.mfaToken(c, "b@example.com") }
                let code = totp.code(at: try await TOTPHarness.now(c)) == "000000" ? "111111" : "000000"
                #expect(try await TOTPHarness.complete(c, token, code).code == "InvalidMFACode", "attempt \(attempt)")
            }
            let now = try await TOTPHarness.now(c, advancing: 0)
            let locked = try await TOTPHarness.complete(c, token, totp.code(at: now))
            #expect(locked.status == 429 && locked.retryAfter != nil, "\(locked.body)")
            // The token survives the wait, and the right code then logs in.
            let after = try await TOTPHarness.now(c, advancing: 30)
            #expect(try await TOTPHarness.complete(c, token, totp.code(at: after)).status == 200)
        }
    }
}

/// The audit log of second factors: each step once, with its user, and no secret or code.
extension TOTPTests {
    @Test func eachStepIsAuditedWithoutASecret() async throws {
        let directory = Scratch.path("mfa-audit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = TestServer.configuration(apps: [TOTPHarness.app()], database: .directory(directory))
        let secrets = Mutex<[String]>([])
        try await TestServer.run(config, mode: .live) { c in
            let (_, totp, recovery) = try await TOTPHarness.enrolled(c, "a@example.com")
            let token = try await TOTPHarness.mfaToken(c, "a@example.com")
            #expect(
                try await TOTPHarness.complete(c, token, "000000" == totp.code(at: try await TOTPHarness.now(c)) ? "111111" : "000000").status == 401)
            let now = try await TOTPHarness.now(c, advancing: 30)
            let done = try await TOTPHarness.complete(c, token, totp.code(at: now))
            let access = try #require(done["access_token"])
            let withCode = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "a@example.com"), recovery[0])
            #expect(try await c.call(.post, TOTPHarness.mfa + "/recovery_codes", token: access).status == 201)
            #expect(try await c.call(.delete, TOTPHarness.mfa + "/totp", token: access).status == 200)
            secrets.withLock { $0 = recovery + [token, access, Base32.encode(totp.secret), try! #require(withCode["refresh_token"])] }
        }
        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let events = try await store.auditEvents(AuditFilter(limit: 1000)).reversed()
        let names = events.map(\.event)
        for name in [
            "totp_enrolment_started", "totp_enrolled", "mfa_failed", "mfa_totp", "mfa_recovery_code", "recovery_codes_replaced",
            "totp_removed",
        ] {
            #expect(names.filter { $0 == name }.count == 1, "\(name): \(names)")
        }
        #expect(names.filter { $0 == "mfa_required" }.count == 2, "\(names)")
        let userId = try #require(events.first { $0.event == "totp_enrolled" }?.userId)
        #expect(
            events.filter { $0.event.hasPrefix("mfa_") }.allSatisfy { $0.userId == userId && $0.provider == "local-userpass" },
            "\(events.filter { $0.event.hasPrefix("mfa_") })")
        #expect(events.first { $0.event == "mfa_failed" }?.detail == "InvalidMFACode")
        let everything = events.map { "\($0)" }.joined(separator: "\n")
        for secret in secrets.withLock({ $0 }) { #expect(!everything.contains(secret), "a secret in the audit log") }
    }
}
