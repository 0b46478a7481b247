// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Synchronization
import Testing

/// The audit log of the Firebase client API, as of the App Services API's: each event once, with
/// its app (the API key's project's), user, provider and outcome, the Firebase error of a
/// failure, and no password, token or code anywhere in it.
@Suite(.timeLimit(.minutes(3))) struct FirebaseAuditLogTests {
    typealias API = FirebaseAPITests

    @Test func firebaseRequestsAreAuditedWithoutSecrets() async throws {
        let directory = Scratch.path("firebase-audit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = TestServer.configuration(apps: [AppConfiguration(id: "local")], database: .directory(directory))
        let secrets = Mutex<[String]>(["Pass-word-1", "Pass-word-2", "wrong-one"])
        try await TestServer.run(config, mode: .live) { c in
            let up = try await API.call(c, "signUp", ["email": "fa@example.com", "password": "Pass-word-1"])
            let idToken = try #require(up.body["idToken"]?.stringValue)
            API.expectError(
                try await API.call(c, "signInWithPassword", ["email": "fa@example.com", "password": "wrong-one"]), 400, "INVALID_LOGIN_CREDENTIALS")
            #expect(try await API.call(c, "update", ["idToken": .string(idToken), "displayName": "Fa"]).status == 200)
            #expect(try await API.call(c, "sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)]).status == 200)
            let verify = try #require(try await API.oobCodes(c).last?["oobCode"]?.stringValue)
            #expect(try await API.call(c, "update", ["oobCode": .string(verify)]).status == 200)
            #expect(try await API.call(c, "update", ["idToken": .string(idToken), "email": "fa.new@example.com"]).status == 200)
            #expect(try await API.call(c, "sendOobCode", ["requestType": "PASSWORD_RESET", "email": "fa.new@example.com"]).status == 200)
            let reset = try #require(try await API.oobCodes(c).last { $0["requestType"] == "PASSWORD_RESET" }?["oobCode"]?.stringValue)
            #expect(try await API.call(c, "resetPassword", ["oobCode": .string(reset), "newPassword": "Pass-word-2"]).status == 200)
            let inside = try await API.call(c, "signInWithPassword", ["email": "fa.new@example.com", "password": "Pass-word-2"])
            let second = try #require(inside.body["idToken"]?.stringValue)
            #expect(try await API.call(c, "delete", ["idToken": .string(second)]).status == 200)
            secrets.withLock {
                $0 += [idToken, second, verify, reset, up.body["refreshToken"]?.stringValue ?? "", inside.body["refreshToken"]?.stringValue ?? ""]
            }
        }

        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let events = try await store.auditEvents(AuditFilter(limit: 1000)).reversed()
        func named(_ name: String) -> [AuditEvent] { events.filter { $0.event == name } }
        #expect(named("login").count == 2 && named("login").allSatisfy { $0.outcome == "success" }, "\(events.map(\.event))")
        let login = try #require(named("login").first)
        #expect(login.appId == "local" && login.provider == ProviderType.userpass && login.userId != nil && login.address == "127.0.0.1")
        let failed = try #require(named("password_failed").first)
        #expect(named("password_failed").count == 1 && failed.outcome == "failure" && failed.detail == "INVALID_LOGIN_CREDENTIALS")
        for name in [
            "profile_updated", "confirm_requested", "confirm", "email_changed", "reset_requested", "reset_done", "user_deleted",
        ] {
            #expect(named(name).count == 1, "\(name): \(events.map(\.event))")
            #expect(named(name).first?.appId == "local" && named(name).first?.outcome == "success", "\(named(name))")
        }
        #expect(named("email_changed").first?.userId == login.userId, "the user it acted for")
        let everything = events.map { "\($0)" }.joined(separator: "\n")
        for secret in secrets.withLock({ $0 }) where !secret.isEmpty {
            #expect(!everything.contains(secret), "a secret in the audit log")
        }
    }
}
