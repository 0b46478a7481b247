// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Crypto
import Testing

/// One account per email (docs/protocol/identity-providers.md section 5) through HTTP on a live server with
/// the dev identity provider: the 409 that carries a pending credential, for every pair of
/// providers that vouch for an email, and every way a pending credential must fail.
@Suite(.timeLimit(.minutes(5))) struct AccountConflictTests {
    static let jwtSecret = "a-shared-secret-of-32-bytes-or-more"

    /// A live dev server whose `local` app has one account per email, email/password
    /// (confirmed by mail, or with `autoConfirm`), and custom-token (HS256).
    static func live(
        oneAccountPerEmail: Bool = true, protection: Bool = false, autoConfirm: Bool = false,
        _ body: @escaping @Sendable (Client, DevIdP) async throws -> Void
    ) async throws {
        var app = AppConfiguration(id: "local")
        app.oneAccountPerEmail = oneAccountPerEmail
        app.emailEnumerationProtection = protection
        app.providers.userpass?.autoConfirm = autoConfirm
        var ct = AppConfiguration.CustomToken()
        ct.signingKeys = [jwtSecret]
        app.providers.customToken = ct
        try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { c in try await body(c, DevIdP(c: c)) }
    }

    /// An HS256 custom token for `sub` with `email` (and `email_verified` when given).
    static func jwt(sub: String, email: String, verified: Bool? = nil) -> String {
        var claims: EJSONDocument = ["sub": .string(sub), "email": .string(email), "exp": .int64(4_000_000_000)]
        if let verified { claims["email_verified"] = .bool(verified) }
        func b64(_ bytes: [UInt8]) -> String { Base64.encode(bytes, urlSafe: true) }
        let input = b64(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + b64(EJSON.document(claims).encoded(.relaxed))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(jwtSecret.utf8)))
        return input + "." + b64(Array(mac))
    }

    /// The providers that vouch for an email, each as a login body for `email` (a new
    /// identity each call for the IdPs; the same account for email/password).
    enum Vouching: String, CaseIterable {
        case google = "oauth2-google", github = "oauth2-github", jwt = "custom-token", password = "local-userpass"

        func body(_ c: Client, _ idp: DevIdP, email: String, verified: Bool = true) async throws -> EJSON {
            switch self {
            case .google: return ["id_token": .string(try await idp.idToken(email: email, verified: verified))]
            case .github:
                let code = try await idp.code(rawValue, email: email, verified: verified)
                return ["authCode": .string(code), "redirectUri": "http://127.0.0.1:9/cb"]
            case .jwt: return ["token": .string(AccountConflictTests.jwt(sub: "sub-" + email, email: email, verified: verified ? nil : false))]
            case .password:
                if try await c.userpass("register", ["email": .string(email), "password": "password1"]).status == 201,
                    let mail = try await c.outbox(email, kind: "confirm").last
                {
                    _ = try await c.userpass("confirm", ["token": mail["token"]!, "tokenId": mail["tokenId"]!])
                }
                return ["username": .string(email), "password": "password1"]
            }
        }
    }

    @Test(arguments: Vouching.allCases)
    func aSecondProviderWithTheSameVerifiedEmailGetsTheConflictThenLinks(first: Vouching) async throws {
        try await Self.live { c, idp in
            for second in Vouching.allCases where second != first {
                let email = "\(first.rawValue)-\(second.rawValue)@Example.com"
                let owner = try await c.login(first.rawValue, try await first.body(c, idp, email: email))
                #expect(owner.status == 200, "\(first) \(owner.body)")
                let ownerId = try #require(owner["user_id"])

                let conflict = try await c.login(second.rawValue, try await second.body(c, idp, email: email))
                #expect(conflict.status == 409 && conflict.code == "AccountExistsWithDifferentCredential", "\(first)→\(second) \(conflict.body)")
                #expect(conflict["email"] == email.lowercased())
                #expect(conflict.body["providers"] == [.string(first.rawValue)])
                #expect(conflict["provider"] == second.rawValue)
                let pending = try #require(conflict["pendingCredential"])

                // Nothing was created: the methods of the email are still the first provider's.
                let methods = try await c.call(.get, Routes.app("local") + "/auth/methods?email=" + email)
                #expect(methods.body["providers"] == [.string(first.rawValue)], "\(methods.body)")

                // The person signs in with the first provider and links the pending credential.
                let again = try await c.login(first.rawValue, try await first.body(c, idp, email: email))
                #expect(again["user_id"] == ownerId)
                let token = try #require(again["access_token"])
                let linked = try await c.login(
                    second.rawValue, ["provider": .string(second.rawValue), "pendingCredential": .string(pending)],
                    link: token)
                #expect(linked.status == 200 && linked["user_id"] == ownerId, "\(first)→\(second) \(linked.body)")
                let types = try await c.profile(token).body["identities"]?.arrayValue?.compactMap { $0["provider_type"]?.stringValue }
                #expect(types == [first.rawValue, second.rawValue])

                // From now on the second provider signs in to the same account.
                let later = try await c.login(second.rawValue, try await second.body(c, idp, email: email))
                #expect(later.status == 200 && later["user_id"] == ownerId, "\(first)→\(second) \(later.body)")
            }
        }
    }

    /// Emails compare as mail is delivered: ASCII case never matters, nothing else folds. An
    /// address with the Kelvin sign (U+212A, which Unicode lowercases to `k`) is another
    /// mailbox: it neither meets the holder of `kelvin@example.com` (nor names its providers),
    /// nor can it be registered.
    @Test func emailsCompareByASCIICaseOnlyAndFoldingCharactersAreRefused() async throws {
        try await Self.live { c, idp in
            let owner = try await c.login("local-userpass", try await Vouching.password.body(c, idp, email: "kelvin@example.com"))
            #expect(owner.status == 200, "\(owner.body)")
            for email in ["\u{212A}elvin@example.com", "kelvin@exampl\u{0435}.com", "\u{FF4B}elvin@example.com"] {
                let other = try await c.login("custom-token", ["token": .string(Self.jwt(sub: "sub-\(email)", email: email))])
                #expect(other.status == 200 && other["user_id"] != owner["user_id"], "\(email): \(other.body)")
                #expect(other.body["providers"] == nil)
            }
            let same = try await c.login("custom-token", ["token": .string(Self.jwt(sub: "sub-upper", email: "KELVIN@Example.COM"))])
            #expect(same.status == 409 && same.body["providers"] == ["local-userpass"], "\(same.body)")
            for email in ["\u{212A}elvin@example.com", "\u{C9}lodie@example.com", "\u{FB01}le@example.com"] {
                let refused = try await c.userpass("register", ["email": .string(email), "password": "password1"])
                #expect(
                    refused.status == 400 && refused.code == "InvalidParameter" && refused.message?.contains("folds") == true,
                    "\(email): \(refused.body)")
            }
            #expect(try await c.userpass("register", ["email": "\u{E9}lodie@example.com", "password": "password1"]).status == 201)
        }
    }

    @Test func anUnverifiedEmailNeverConflictsOrLinks() async throws {
        try await Self.live { c, idp in
            let owner = try await c.login("local-userpass", try await Vouching.password.body(c, idp, email: "victim@example.com"))
            let ownerId = try #require(owner["user_id"])
            for provider in [Vouching.google, .github, .jwt] {
                let login = try await c.login(provider.rawValue, try await provider.body(c, idp, email: "victim@example.com", verified: false))
                #expect(login.status == 200, "\(provider) \(login.body)")
                #expect(login["user_id"] != ownerId, "an unverified \(provider) email took over the account")
            }
            let profile = try await c.profile(try #require(owner["access_token"]))
            #expect(profile.body["identities"]?.arrayValue?.count == 1)
            #expect(
                try await c.call(.get, Routes.app("local") + "/auth/methods?email=victim@example.com").body["providers"]
                    == ["local-userpass"])
        }
    }

    @Test func aPendingCredentialIsUsedOnceWithinTenMinutesByTheOwnerOfItsEmail() async throws {
        try await Self.live { c, idp in
            let owner = try await c.login("local-userpass", try await Vouching.password.body(c, idp, email: "pc@example.com"))
            let token = try #require(owner["access_token"])
            func pending() async throws -> String {
                let conflict = try await c.login("oauth2-google", try await Vouching.google.body(c, idp, email: "pc@example.com"))
                #expect(conflict.status == 409, "\(conflict.body)")
                return try #require(conflict["pendingCredential"])
            }
            func link(_ p: String, provider: String = "oauth2-google", as access: String? = nil) async throws -> Reply {
                try await c.login(provider, ["pendingCredential": .string(p)], link: access ?? token)
            }

            // Tampered: every byte changed fails, and the real one still works afterwards.
            let p = try await pending()
            var altered = Array(p.utf8)
            altered[altered.count - 2] = altered[altered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let tampered = try await link(String(decoding: altered, as: UTF8.self))
            #expect(tampered.status == 400 && tampered.code == "InvalidParameter", "\(tampered.body)")
            #expect(try await link("garbage").status == 400)
            // Another provider's route, a login without link, another user: refused, and not used up.
            #expect(try await link(p, provider: "oauth2-github").status == 400)
            let notLinked = try await c.login("oauth2-google", ["pendingCredential": .string(p)])
            #expect(notLinked.status == 400, "\(notLinked.body)")
            let stranger = try await c.anonymous()
            let byStranger = try await link(p, as: try #require(stranger["access_token"]))
            #expect(byStranger.status == 403, "\(byStranger.body)")
            #expect(try await c.profile(try #require(stranger["access_token"])).body["identities"]?.arrayValue?.count == 1)

            // The owner links it once; a second use fails.
            #expect(try await link(p).status == 200)
            let twice = try await link(p)
            #expect(twice.status == 400 && twice.code == "InvalidParameter", "\(twice.body)")

            // Expired after ten minutes of the dev clock.
            let owner2 = try await c.login("local-userpass", try await Vouching.password.body(c, idp, email: "late@example.com"))
            let conflict = try await c.login("oauth2-github", try await Vouching.github.body(c, idp, email: "late@example.com"))
            let late = try #require(conflict["pendingCredential"])
            #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 601]).status == 200)
            let expired = try await c.login(
                "oauth2-github", ["pendingCredential": .string(late)],
                link: try #require(owner2["access_token"]))
            #expect(expired.status == 400 && expired.message?.contains("expired") == true, "\(expired.body)")
        }
    }

    /// With `autoConfirm` anyone can register any address: such an account proves nothing, so
    /// it cannot pre-empt the person who owns the address (account pre-hijacking).
    @Test func anAutoConfirmedAccountDoesNotHoldItsEmail() async throws {
        try await Self.live(autoConfirm: true) { c, idp in
            #expect(try await c.userpass("register", ["email": "owner@example.com", "password": "attacker1"]).status == 201)
            let squatter = try await c.emailLogin("owner@example.com", "attacker1")
            #expect(squatter.status == 200)
            #expect(try await c.call(.get, Routes.app("local") + "/auth/methods?email=owner@example.com").body["providers"] == [])
            let owner = try await c.login("oauth2-google", try await Vouching.google.body(c, idp, email: "owner@example.com"))
            #expect(owner.status == 200 && owner["user_id"] != squatter["user_id"], "\(owner.body)")
        }
    }

    @Test func withoutOneAccountPerEmailASecondProviderIsASecondUser() async throws {
        try await Self.live(oneAccountPerEmail: false) { c, idp in
            let first = try await c.login("local-userpass", try await Vouching.password.body(c, idp, email: "two@example.com"))
            let second = try await c.login("oauth2-google", try await Vouching.google.body(c, idp, email: "two@example.com"))
            #expect(second.status == 200 && second["user_id"] != first["user_id"], "\(second.body)")
        }
    }

    @Test func signInMethodsAnswerUnlessEnumerationIsProtected() async throws {
        try await Self.live { c, idp in
            let route = Routes.app("local") + "/auth/methods?email="
            #expect(try await c.call(.get, route + "nobody@example.com").body["providers"] == [])
            // A confirmed account that never logged in has a method already; an unconfirmed one has none.
            _ = try await c.userpass("register", ["email": "Mixed@Example.com", "password": "password1"])
            #expect(try await c.call(.get, route + "mixed@example.com").body["providers"] == [])
            let mail = try #require(try await c.outbox("Mixed@Example.com", kind: "confirm").last)
            #expect(try await c.userpass("confirm", ["token": mail["token"]!, "tokenId": mail["tokenId"]!]).status == 200)
            #expect(try await c.call(.get, route + "mixed@example.com").body["providers"] == ["local-userpass"])
            let google = try await c.login("oauth2-google", try await Vouching.google.body(c, idp, email: "g@example.com"))
            #expect(try await c.call(.get, route + "G@example.com").body["providers"] == ["oauth2-google"])
            let anon = try await c.call(.get, route + "g@example.com", token: google["access_token"])
            #expect(anon.status == 200)
            let missing = try await c.call(.get, Routes.app("local") + "/auth/methods")
            #expect(missing.status == 400 && missing.code == "MissingParameter")
            #expect(try await c.call(.get, route + "not-an-address").status == 400)
        }
        try await Self.live(protection: true) { c, _ in
            let reply = try await c.call(.get, Routes.app("local") + "/auth/methods?email=g@example.com")
            #expect(reply.status == 403 && reply.code == "EnumerationProtected", "\(reply.body)")
        }
    }
}
