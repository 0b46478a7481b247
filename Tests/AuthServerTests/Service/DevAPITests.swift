// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

@Suite(.timeLimit(.minutes(5))) struct DevAPITests {
    @Test func wipeAndOutbox() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("w@example.com")
            let login = try await c.emailLogin("w@example.com", "password1")
            #expect(try await c.call(.delete, "\(Routes.dev)/apps/local/outbox").status == 200)
            #expect(try await c.outbox("w@example.com", kind: "confirm").isEmpty)
            #expect(try await c.call(.delete, "\(Routes.dev)/apps/local/users").status == 200)
            #expect(try await c.refresh(login["refresh_token"]!).status == 401)
            #expect(try await c.emailLogin("w@example.com", "password1").code == "InvalidPassword")
            let kind = try await c.call(.get, "\(Routes.dev)/apps/local/outbox?kind=bogus")
            #expect(kind.status == 400)
        }
    }

    @Test func readAndPatchConfig() async throws {
        try await TestServer.run { c in
            let path = "\(Routes.dev)/apps/local/config"
            let before = try await c.call(.get, path)
            #expect(before.body["providers"]?["local-userpass"]?["autoConfirm"] == false)
            let patched = try await c.call(.patch, path, json: ["providers": ["local-userpass": ["autoConfirm": true]]])
            #expect(patched.status == 200 && patched.body["providers"]?["local-userpass"]?["autoConfirm"] == true)
            #expect(try await c.userpass("register", ["email": "p@example.com", "password": "password1"]).status == 201)
            #expect(try await c.emailLogin("p@example.com", "password1").status == 200)
            let typo = try await c.call(.patch, path, json: ["providers": ["anon-user": ["enabeld": false]]])
            #expect(typo.status == 400 && typo.message?.contains("providers.anon-user.enabeld: unknown key") == true)
            let off = try await c.call(.patch, path, json: ["providers": ["anon-user": ["enabled": false]]])
            #expect(off.status == 200)
            #expect(try await c.anonymous().code == "AuthProviderNotFound")
        }
    }

    @Test func clock() async throws {
        try await TestServer.run { c in
            let now = try #require(try await c.call(.get, "\(Routes.dev)/clock").body["now"]?.integerValue)
            let later = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 3600])
            #expect((later.body["now"]?.integerValue ?? 0) - now >= 3600)
            #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": -5]).status == 400)
        }
    }
}
