// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Foundation
import TestSupport
import Testing

/// The user store: survives a restart, is private to its owner, sets corrupt files aside, and
/// keeps the updates of two users of one store.
@Suite(.timeLimit(.minutes(5))) struct StoreTests {
    @Test func usersSurviveARestartWithNoRequest() async throws {
        let storage = try TemporaryDirectory("store")
        try await LiveServer.run { server in
            let first = try server.app(storage: storage.path)
            try await server.registerConfirmed(first, "ada@example.com")
            let ada = try await first.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            let anon = try await first.login(credentials: .anonymous())
            try first.switchUser(to: ada)

            let counter = RequestCounter()
            let second = try server.app(counter: counter, storage: storage.path)
            #expect(second.storeProblems.isEmpty)
            let current = try #require(second.currentUser)
            #expect(current.id == ada.id && current.state == .loggedIn && current.profile.email == "ada@example.com")
            #expect(current.refreshToken == ada.refreshToken && current.deviceId == ada.deviceId)
            #expect(Set(second.allUsers.keys) == [ada.id, anon.id] && second.allUsers[anon.id]?.isAnonymous == true)
            #expect(counter.total == 0)
            // And the restored tokens work.
            try await current.refreshProfile()
        }
    }

    /// A store whose parents do not exist yet (`~/.local/share/authsh` on a fresh account) is
    /// created with them.
    @Test func aStoreUnderMissingParentsIsCreated() async throws {
        let storage = try TemporaryDirectory("store")
        let nested = storage.path + "/home/.local/share/authsh"
        try await LiveServer.run { server in
            let app = try server.app(storage: nested)
            try await app.login(credentials: .anonymous())
            #expect(storage.files(endingWith: ".json").count == 1)
            #expect(try FileManager.default.attributesOfItem(atPath: nested)[.posixPermissions] as? Int == 0o700)
        }
    }

    @Test func filesAreReadableByTheirOwnerOnly() async throws {
        let storage = try TemporaryDirectory("store")
        try await LiveServer.run { server in
            let app = try server.app(storage: storage.path)
            try await app.login(credentials: .anonymous())
            let files = storage.files(endingWith: ".json")
            #expect(files.count == 1)
            for file in files {
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
                #expect(mode == 0o600, "\(file)")
                let dir = (file as NSString).deletingLastPathComponent
                #expect(try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int == 0o700)
            }
        }
    }

    @Test func aCorruptFileIsSetAsideAndReported() async throws {
        let storage = try TemporaryDirectory("store")
        try await LiveServer.run { server in
            let app = try server.app(storage: storage.path)
            let kept = try await app.login(credentials: .anonymous(reuse: false))
            let broken = try await app.login(credentials: .anonymous(reuse: false))
            let file = try #require(storage.files(endingWith: "\(broken.id).json").first)
            try Data("{\"version\": 1, \"id\": \"trunc".utf8).write(to: URL(fileURLWithPath: file))
            // A temporary file left by a writer killed mid-write is ignored.
            try Data("{\"half".utf8).write(to: URL(fileURLWithPath: file + ".tmp-99999"))
            let reopened = try server.app(storage: storage.path)
            #expect(reopened.storeProblems.count == 1 && reopened.storeProblems[0].contains(".corrupt-"))
            #expect(storage.files(endingWith: ".json").count == 1)
            #expect(!storage.files(endingWith: "").filter { $0.contains("\(broken.id).json.corrupt-") }.isEmpty)
            #expect(Array(reopened.allUsers.keys) == [kept.id])
        }
    }

    /// A file that goes bad after the store opened is not taken for a missing user: the next
    /// change of that user sets it aside and fails, and nothing is deleted.
    @Test func aFileThatGoesBadLaterIsSetAsideNotDeleted() async throws {
        let storage = try TemporaryDirectory("store")
        try await LiveServer.run { server in
            let app = try server.app(storage: storage.path)
            let user = try await app.login(credentials: .anonymous(reuse: false))
            let file = try #require(storage.files(endingWith: "\(user.id).json").first)
            try Data("{\"version\": 1, \"id\": \"trunc".utf8).write(to: URL(fileURLWithPath: file))
            let error = await #expect(throws: AuthClientError.self) { try await user.logOut() }
            #expect(error?.code == AuthClientError.storeFailed && error?.message.contains(".corrupt-") == true)
            #expect(storage.files(endingWith: "").contains { $0.contains("\(user.id).json.corrupt-") })
        }
    }

    /// Two processes holding the same user: one refreshes its token while the other links an
    /// identity to it; each change re-reads the file under the lock, so neither is lost.
    @Test func twoAppsChangingOneUserKeepBothChanges() async throws {
        let storage = try TemporaryDirectory("store")
        try await LiveServer.run { server in
            let a = try server.app(storage: storage.path)
            let anonymous = try await a.login(credentials: .anonymous())
            let b = try server.app(storage: storage.path)
            let same = try #require(b.allUsers[anonymous.id])
            try await server.registerConfirmed(a, "lin@example.com")
            try await anonymous.linkIdentity(credentials: .emailPassword(email: "lin@example.com", password: "password1"))
            _ = try await same.refreshCustomData()  // b's copy predates the link
            let c = try server.app(storage: storage.path)
            let seen = try #require(c.allUsers[anonymous.id])
            #expect(seen.identities.map(\.providerType) == ["anon-user", "local-userpass"])
            #expect(seen.accessToken == same.accessToken)
        }
    }

    @Test func twoAppsOnOneStoreKeepEachOthersUpdates() async throws {
        let storage = try TemporaryDirectory("store")
        try await LiveServer.run { server in
            let a = try server.app(storage: storage.path), b = try server.app(storage: storage.path)
            try await server.registerConfirmed(a, "ada@example.com")
            try await server.registerConfirmed(a, "grace@example.com")
            async let adaLogin = a.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            async let graceLogin = b.login(credentials: .emailPassword(email: "grace@example.com", password: "password1"))
            let (ada, grace) = try await (adaLogin, graceLogin)
            try await grace.logOut()
            try await ada.refreshProfile()
            let c = try server.app(storage: storage.path)
            #expect(c.allUsers[ada.id]?.state == .loggedIn && c.allUsers[grace.id]?.state == .loggedOut)
            #expect(c.allUsers[ada.id]?.accessToken == ada.accessToken)
        }
    }
}

/// A writer killed with SIGKILL while it writes leaves a store that opens cleanly.
@Suite(.timeLimit(.minutes(5))) struct KilledWriterTests {
    static var writer: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/client-bench").path
    }

    @Test func aWriterKilledMidWriteLeavesAStoreThatOpens() async throws {
        let storage = try TemporaryDirectory(), logs = try TemporaryDirectory()
        try await LiveServer.run { server in
            for round in 1...3 {
                let process = try ChildProcess(
                    [Self.writer, "--store-writer", storage.path, server.origin], output: logs.path + "/writer-\(round).log")
                try await process.waitForOutput { $0.contains("writing") ? () : nil }  // the loop has started
                // Let it write a few users, then kill it wherever it is.
                let before = storage.files(endingWith: ".json").count
                for _ in 0..<500 where storage.files(endingWith: ".json").count < before + 3 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await Task.sleep(for: .milliseconds(7 * round))
                process.stop()  // SIGKILL
                #expect(process.terminatingSignal == SIGKILL)
            }
            let app = try server.app(storage: storage.path)
            #expect(app.storeProblems.isEmpty, "\(app.storeProblems)")
            #expect(app.allUsers.count >= 9, "the writer logged users in")
            #expect(app.currentUser != nil)
        }
    }
}
