// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import TestSupport
import Testing

@testable import AuthServer

/// Firebase's email change through HTTP: `sendOobCode` `VERIFY_AND_CHANGE_EMAIL` and its code,
/// `update` with `email`, the `RECOVER_EMAIL` mail to the old address and its code, and the
/// Admin API's change and link.
@Suite(.timeLimit(.minutes(3))) struct FirebaseEmailChangeTests {
    typealias API = FirebaseAPITests

    /// The code of the newest mail of `type` to `email`, as the emulator's `oobCodes` lists it.
    static func code(_ c: Client, _ type: String, to email: String) async throws -> EJSON {
        try #require(
            try await API.oobCodes(c).last { $0["requestType"]?.stringValue == type && ($0["newEmail"] ?? $0["email"])?.stringValue == email }?[
                "oobCode"])
    }

    /// A link to the new address moves the account there once its code is applied: the email
    /// proven, every session ended, the old address told, and its own code moves it back.
    @Test func aChangeByLinkMovesTheAccountAndTheOldAddressCanTakeItBack() async throws {
        try await TestServer.run { c in
            let up = try await API.call(c, "signUp", ["email": "ann@example.com", "password": "password1"])
            let idToken = try #require(up.body["idToken"])
            func send(_ newEmail: EJSON?) async throws -> Reply {
                var body: EJSONDocument = ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": idToken]
                if let newEmail { body["newEmail"] = newEmail }
                return try await API.call(c, "sendOobCode", .document(body))
            }
            API.expectError(try await send(nil), 400, "MISSING_NEW_EMAIL")
            API.expectError(try await send("not an email"), 400, "INVALID_NEW_EMAIL")
            API.expectError(
                try await API.call(c, "sendOobCode", ["requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": "x@example.com"]), 400,
                "MISSING_ID_TOKEN")
            _ = try await API.call(c, "signUp", ["email": "bob@example.com", "password": "password1"])
            API.expectError(try await send("bob@example.com"), 400, "EMAIL_EXISTS")

            let sent = try await send("ann.new@example.com")
            #expect(sent.status == 200 && sent["email"] == "ann@example.com", "\(sent.body)")
            let listed = try #require(try await API.oobCodes(c).last)
            // Listed as the emulator lists it: under the account's email, the address mailed in newEmail.
            #expect(
                listed["requestType"] == "VERIFY_AND_CHANGE_EMAIL" && listed["email"] == "ann@example.com"
                    && listed["newEmail"] == "ann.new@example.com", "\(listed)")
            #expect(listed["oobLink"]?.stringValue?.contains("mode=verifyAndChangeEmail") == true, "\(listed)")
            let code = try #require(listed["oobCode"])
            let checked = try await API.call(c, "resetPassword", ["oobCode": code])
            #expect(checked["requestType"] == "VERIFY_AND_CHANGE_EMAIL", "\(checked.body)")
            #expect(checked["email"] == "ann@example.com" && checked["newEmail"] == "ann.new@example.com", "\(checked.body)")
            #expect(try await API.call(c, "lookup", ["idToken": idToken]).status == 200, "nothing changes before the code is applied")

            let applied = try await API.call(c, "update", ["oobCode": code])
            #expect(applied.status == 200 && applied["email"] == "ann.new@example.com" && applied.body["emailVerified"] == true, "\(applied.body)")
            #expect(applied["localId"] == up["localId"] && applied["newEmail"] == "ann.new@example.com")
            API.expectError(try await API.call(c, "update", ["oobCode": code]), 400, "INVALID_OOB_CODE")
            API.expectError(try await API.call(c, "lookup", ["idToken": idToken]), 400, "INVALID_ID_TOKEN")
            API.expectError(
                try await API.call(c, "signInWithPassword", ["email": "ann@example.com", "password": "password1"]), 400,
                "INVALID_LOGIN_CREDENTIALS")
            let moved = try await API.call(c, "signInWithPassword", ["email": "ann.new@example.com", "password": "password1"])
            #expect(moved["localId"] == up["localId"], "\(moved.body)")
            #expect(try API.parts(moved["idToken"]).claims["email"] == "ann.new@example.com")
            #expect(try API.parts(moved["idToken"]).claims["email_verified"] == true)
            // One user base: the App Services API logs in with the new email too.
            #expect(try await c.emailLogin("ann.new@example.com", "password1").status == 200)

            // The old address is told, and takes the account back: every session ends.
            let recover = try await Self.code(c, "RECOVER_EMAIL", to: "ann@example.com")
            let told = try await API.call(c, "resetPassword", ["oobCode": recover])
            #expect(told["requestType"] == "RECOVER_EMAIL" && told["email"] == "ann@example.com", "\(told.body)")
            #expect(told["newEmail"] == "ann.new@example.com", "\(told.body)")
            let back = try await API.call(c, "update", ["oobCode": recover])
            #expect(back.status == 200 && back["email"] == "ann@example.com" && back.body["emailVerified"] == true, "\(back.body)")
            API.expectError(try await API.call(c, "lookup", ["idToken": moved.body["idToken"]!]), 400, "INVALID_ID_TOKEN")
            let home = try await API.call(c, "signInWithPassword", ["email": "ann@example.com", "password": "password1"])
            #expect(home["localId"] == up["localId"], "\(home.body)")
            API.expectError(try await API.call(c, "update", ["oobCode": recover]), 400, "INVALID_OOB_CODE")
        }
    }

    /// `update` with `email` moves the account at once, its new email unproven; the caller's
    /// session stays, every other ends; the old address gets its way back. Not while email
    /// enumeration protection is on, nor to a taken email.
    @Test func anUpdateMovesTheAccountAtOnceUnproven() async throws {
        try await TestServer.run { c in
            let up = try await API.call(c, "signUp", ["email": "cy@example.com", "password": "password1"])
            let idToken = try #require(up.body["idToken"])
            let other = try await c.emailLogin("cy@example.com", "password1")
            _ = try await API.call(c, "signUp", ["email": "dee@example.com", "password": "password1"])
            API.expectError(try await API.call(c, "update", ["idToken": idToken, "email": "DEE@example.com"]), 400, "EMAIL_EXISTS")
            API.expectError(try await API.call(c, "update", ["idToken": idToken, "email": "nope"]), 400, "INVALID_EMAIL")
            API.expectError(
                try await API.call(c, "update", ["idToken": idToken, "email": "cy.new@example.com", "password": "short"]), 400, "WEAK_PASSWORD")
            #expect(try await c.refresh(try #require(other["refresh_token"])).status == 201, "a refused update changes nothing")

            let changed = try await API.call(c, "update", ["idToken": idToken, "email": "cy.new@example.com"])
            #expect(changed.status == 200 && changed["email"] == "cy.new@example.com" && changed.body["emailVerified"] == false, "\(changed.body)")
            #expect(try await API.call(c, "lookup", ["idToken": idToken]).status == 200, "the caller's session stays")
            #expect(try await c.refresh(try #require(other["refresh_token"])).status == 401, "every other ends")
            let inside = try await API.call(c, "signInWithPassword", ["email": "cy.new@example.com", "password": "password1"])
            #expect(try API.parts(inside["idToken"]).claims["email_verified"] == false, "\(inside.body)")
            let recover = try await Self.code(c, "RECOVER_EMAIL", to: "cy@example.com")
            #expect(try await API.call(c, "update", ["oobCode": recover]).status == 200)
            #expect(try await API.call(c, "signInWithPassword", ["email": "cy@example.com", "password": "password1"]).status == 200)

            let patched = try await c.call(
                .patch, "/emulator/v1/projects/local/config", json: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
            #expect(patched.status == 200, "\(patched.body)")
            let fresh = try await API.call(c, "signInWithPassword", ["email": "cy@example.com", "password": "password1"])
            API.expectError(
                try await API.call(c, "update", ["idToken": fresh.body["idToken"]!, "email": "cy.other@example.com"]), 400, "OPERATION_NOT_ALLOWED")
            // A link to a taken email: the same answer as any, and no mail (which emails have
            // accounts stays hidden).
            let before = try await API.oobCodes(c).count
            let hidden = try await API.call(
                c, "sendOobCode", ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": fresh.body["idToken"]!, "newEmail": "dee@example.com"])
            #expect(hidden.status == 200 && hidden["email"] == "cy@example.com", "\(hidden.body)")
            #expect(try await API.oobCodes(c).count == before)
        }
    }

    /// The Admin API changes a user's email (every session ends) and makes change links.
    @Test func theAdminAPIChangesEmailsAndMakesChangeLinks() async throws {
        try await TestServer.run { c in
            let up = try await API.call(c, "signUp", ["email": "eve@example.com", "password": "password1"])
            let uid = try #require(up.body["localId"])
            let updated = try await FirebaseAdminAPITests.call(
                c, "accounts:update", ["localId": uid, "email": "eve.admin@example.com", "emailVerified": true])
            #expect(updated.status == 200, "\(updated.body)")
            API.expectError(try await API.call(c, "lookup", ["idToken": up.body["idToken"]!]), 400, "INVALID_ID_TOKEN")
            let inside = try await API.call(c, "signInWithPassword", ["email": "eve.admin@example.com", "password": "password1"])
            #expect(try API.parts(inside["idToken"]).claims["email_verified"] == true, "\(inside.body)")

            let before = try await API.oobCodes(c).count
            let link = try await FirebaseAdminAPITests.call(
                c, "accounts:sendOobCode",
                [
                    "requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "eve.admin@example.com", "newEmail": "eve.link@example.com",
                    "returnOobLink": true,
                ])
            #expect(link.status == 200 && link["oobLink"]?.contains("mode=verifyAndChangeEmail") == true, "\(link.body)")
            #expect(try await API.oobCodes(c).count == before, "no mail")
            let applied = try await API.call(c, "update", ["oobCode": link.body["oobCode"]!])
            #expect(applied.status == 200 && applied["email"] == "eve.link@example.com", "\(applied.body)")
            let unsent = try await FirebaseAdminAPITests.call(
                c, "accounts:sendOobCode", ["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "eve.link@example.com", "newEmail": "x@example.com"])
            API.expectError(unsent, 400, "OPERATION_NOT_ALLOWED")
        }
    }
}
