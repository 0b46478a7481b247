// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Testing

/// The client's names of docs/protocol/identity-providers.md section 7 against a live server: the
/// account-exists conflict and its pending credential, sign-in methods, reauthentication,
/// sessions, unlink and change password.
@Suite(.timeLimit(.minutes(5))) struct AccountTests {
    static func oneAccountPerEmail(recentLogin: Int64? = nil) -> (inout ServerConfiguration) -> Void {
        { config in
            config.apps[0].oneAccountPerEmail = true
            config.apps[0].recentLoginSeconds = recentLogin
        }
    }

    @Test func theConflictCarriesACredentialThatTheOwnerLinks() async throws {
        try await LiveServer.run(Self.oneAccountPerEmail()) { h in
            let app = try h.app()
            try await h.registerConfirmed(app, "ada@example.com")
            let ada = DevIdentity(email: "ada@example.com", name: "Ada")
            do {
                _ = try await app.signIn(provider: "github", presenter: .devIdentity(ada, device: false))
                Issue.record("a GitHub sign-in with an email an account holds went through")
            } catch let error as AuthClientError {
                #expect(error.code == "AccountExistsWithDifferentCredential" && error.status == 409, "\(error)")
                #expect(error.email == "ada@example.com")
                #expect(error.providers == ["local-userpass"])
                let pending = try #require(error.pendingCredential)
                #expect(pending.provider == "oauth2-github")
                #expect(app.currentUser == nil, "a failed sign-in logs nobody in")

                #expect(try await app.signInMethods(email: "ADA@example.com") == ["local-userpass"])
                let user = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
                try await user.linkIdentity(pending)
                #expect(user.identities.map(\.providerType) == ["local-userpass", "oauth2-github"])
                #expect(try await app.signInMethods(email: "ada@example.com") == ["local-userpass", "oauth2-github"])

                // GitHub now signs in to the same account.
                try await user.logOut()
                let again = try await app.signIn(provider: "github", presenter: .devIdentity(ada, device: false))
                #expect(again.id == user.id)

                // And the email/password identity can go, leaving GitHub.
                let userpassId = try #require(again.identities.first { $0.providerType == "local-userpass" }?.id)
                try await again.unlink(providerType: "local-userpass", id: userpassId)
                #expect(again.identities.map(\.providerType) == ["oauth2-github"])
                do {
                    try await again.unlink(providerType: "oauth2-github", id: try #require(again.identities.first?.id))
                    Issue.record("the last identity was unlinked")
                } catch let error as AuthClientError {
                    #expect(error.code == "CannotUnlinkLastIdentity")
                }
            }
        }
    }

    @Test func reauthenticationKeepsTheUserAndRefusesAnotherOne() async throws {
        let dir = Scratch.path("reauth")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        /// Every file of the user store, by path, with its bytes.
        @Sendable func storeFiles() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for case let path as String in FileManager.default.enumerator(atPath: dir)?.allObjects ?? [] {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: dir + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    files[path] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + path))
                }
            }
            return files
        }
        try await LiveServer.run(Self.oneAccountPerEmail(recentLogin: 300)) { h in
            let app = try h.app(storage: dir)
            try await h.registerConfirmed(app, "ada@example.com")
            try await h.registerConfirmed(app, "bob@example.com")
            let bob = try await app.login(credentials: .emailPassword(email: "bob@example.com", password: "password1"))
            let ada = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            try await h.advanceClock(301)

            do {
                try await ada.delete()
                Issue.record("a delete went through with a login older than recentLoginSeconds")
            } catch let error as AuthClientError {
                #expect(error.code == "RequiresRecentLogin" && error.status == 401, "\(error)")
            }
            #expect(ada.state == .loggedIn, "RequiresRecentLogin does not log the user out")

            // Bob's credentials: UserMismatch, and nothing changes here or in Bob's sessions.
            let before = (ada.accessToken, ada.refreshToken, app.usersInOrder.map(\.id), app.currentUser?.id)
            let filesBefore = try storeFiles()
            #expect(!filesBefore.isEmpty)
            let bobSessions = try await bob.sessions().count
            do {
                try await ada.reauthenticate(with: .emailPassword(email: "bob@example.com", password: "password1"))
                Issue.record("reauthenticated as another user")
            } catch let error as AuthClientError {
                #expect(error.code == "UserMismatch", "\(error)")
            }
            #expect(ada.accessToken == before.0 && ada.refreshToken == before.1)
            #expect(app.usersInOrder.map(\.id) == before.2 && app.currentUser?.id == before.3)
            #expect(try storeFiles() == filesBefore, "the user store is untouched")
            #expect(try await bob.sessions().count == bobSessions, "the session the mismatched login opened was ended")

            // Her own credentials: the same user, new tokens, the old session ended.
            let oldRefresh = try #require(ada.refreshToken)
            let same = try await ada.reauthenticate(with: .emailPassword(email: "ada@example.com", password: "password1"))
            #expect(same == ada && ada.refreshToken != oldRefresh)
            #expect(app.usersInOrder.map(\.id) == before.2)
            let sessions = try await ada.sessions()
            #expect(sessions.count == 1 && sessions[0].isCurrent)
            try await ada.delete()
            #expect(ada.state == .removed)
        }
    }

    @Test func sessionsAreListedAndEndedAndAPasswordChangeEndsTheOthers() async throws {
        try await LiveServer.run { h in
            let phone = try h.app(), laptop = try h.app(), desk = try h.app()
            try await h.registerConfirmed(phone, "s@example.com", "old-password")
            let credentials = Credentials.emailPassword(email: "s@example.com", password: "old-password")
            let onPhone = try await phone.login(credentials: credentials)
            let onLaptop = try await laptop.login(credentials: credentials)
            let onDesk = try await desk.login(credentials: credentials)

            let listed = try await onPhone.sessions()
            #expect(listed.count == 3 && listed.filter(\.isCurrent).count == 1)
            #expect(listed.first(where: \.isCurrent)?.deviceId == onPhone.deviceId)
            // The laptop's session is the one listed whose device is the laptop's.
            let laptopSession = try #require(listed.first { $0.deviceId == onLaptop.deviceId })
            try await onPhone.revokeSession(id: laptopSession.id)
            await #expect(throws: AuthClientError.self) { try await onLaptop.refreshCustomData() }
            #expect(onLaptop.state == .loggedOut, "a refresh refused by the server logs the user out here")

            try await phone.emailPasswordAuth.changePassword(from: "old-password", to: "new-password")
            await #expect(throws: AuthClientError.self) { try await onDesk.refreshCustomData() }
            #expect(try await onPhone.sessions().count == 1)
            #expect(try await onPhone.revokeOtherSessions() == 0)
            _ = try await laptop.login(credentials: .emailPassword(email: "s@example.com", password: "new-password"))
            #expect(try await onPhone.revokeOtherSessions() == 1)
        }
    }
}
