// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Crypto
import Testing

/// Passkeys through HTTP, with the software authenticator standing in for a browser's:
/// registration, discoverable login, the second step of a login, and every refusal the
/// WebAuthn ceremonies call for (a replay, a counter that goes back, another origin or RP id,
/// a signature or client data changed on the way, attestation formats).
@Suite(.timeLimit(.minutes(5))) struct PasskeyTests {
    static let passkeys = Routes.base + "/auth/passkeys"
    static let origin = "http://localhost:5173"

    /// Options of a route, in the plain JSON the passkey routes answer.
    static func options(_ c: Client, _ path: String, token: String? = nil) async throws -> EJSON {
        let reply = try await c.call(.post, path, token: token)
        #expect(reply.status == 200, "\(path): \(reply.body)")
        return try #require(reply.body["publicKey"])
    }

    static func loginOptions(_ c: Client) async throws -> EJSON {
        try await options(c, c.appRoute + "/auth/providers/passkey/options")
    }

    /// Registers a passkey of `authenticator` for the user of `access`; the reply.
    @discardableResult
    static func register(_ c: Client, _ authenticator: SoftwareAuthenticator, access: String, name: String = "laptop") async throws -> Reply {
        let options = try await Self.options(c, Self.passkeys + "/options", token: access)
        let credential = try authenticator.create(options)
        return try await c.call(.post, Self.passkeys, json: ["credential": credential, "name": .string(name)], token: access)
    }

    static func login(_ c: Client, _ credential: EJSON) async throws -> Reply {
        try await c.login("passkey", ["credential": credential])
    }

    /// `credential` with `response.key` replaced by `value`.
    static func changing(_ credential: EJSON, _ key: String, _ value: EJSON) -> EJSON {
        guard case .document(var c) = credential, case .document(var r)? = c["response"] else { return credential }
        r[key] = value
        c["response"] = .document(r)
        return .document(c)
    }

    @Test func registerThenLogInWithNoUserName() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("p@example.com")
            let first = try await c.emailLogin("p@example.com", "password1")
            let access = try #require(first["access_token"])
            let device = SoftwareAuthenticator(origin: Self.origin)
            let options = try await Self.options(c, Self.passkeys + "/options", token: access)
            #expect(options["rp"]?["id"] == "localhost" && options["attestation"] == "none")
            #expect(options["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.integerValue } == [-7, -8, -257])
            #expect(options["authenticatorSelection"]?["residentKey"] == "required")
            let credential = try device.create(options)
            let added = try await c.call(.post, Self.passkeys, json: ["credential": credential, "name": "laptop"], token: access)
            #expect(added.status == 201 && added["name"] == "laptop", "\(added.body)")
            #expect(added["id"] == credential["id"]?.stringValue)

            // The same answer again: its challenge is spent.
            let replayed = try await c.call(.post, Self.passkeys, json: ["credential": credential], token: access)
            #expect(replayed.status == 400 && replayed.message?.contains("challenge is unknown, used or expired") == true, "\(replayed.body)")
            // The authenticator will not make a second credential for the same account.
            let again = try await Self.options(c, Self.passkeys + "/options", token: access)
            #expect(again["excludeCredentials"]?.arrayValue?.count == 1)
            #expect(throws: SoftwareAuthenticator.Failure.self) { try device.create(again) }

            let assertion = try device.get(try await Self.loginOptions(c))
            let done = try await Self.login(c, assertion)
            #expect(done.status == 200 && done["user_id"] == first["user_id"], "\(done.body)")
            #expect(try TOTPHarness.amr(done["access_token"]) == ["pop", "mfa"], "a verified user is two factors")
            let replay = try await Self.login(c, assertion)
            #expect(replay.status == 400 && replay.message?.contains("challenge is unknown") == true, "\(replay.body)")

            let listed = try await c.call(.get, Self.passkeys, token: access)
            let item = try #require(listed.body.arrayValue?.first)
            #expect(item["name"] == "laptop" && item["lastUsedAt"]?.integerValue != nil && item["algorithm"]?.integerValue == -7)
            // A passkey is registered, never linked as an identity.
            let linking = try await c.login("passkey", ["credential": try device.get(try await Self.loginOptions(c))], link: access)
            #expect(linking.status == 400 && linking.message?.hasPrefix("a passkey is not linked") == true, "\(linking.body)")

            let renamed = try await c.call(.put, Self.passkeys + "/" + (added["id"] ?? ""), json: ["name": "phone"], token: access)
            #expect(renamed.status == 200 && renamed["name"] == "phone", "\(renamed.body)")
        }
    }

    @Test func aCounterThatGoesBackIsAClone() async throws {
        try await TestServer.run { c in
            let access = try #require(try await c.anonymous()["access_token"])
            let device = SoftwareAuthenticator(origin: Self.origin)
            #expect(try await Self.register(c, device, access: access).status == 201)
            let snapshot = device.credentials
            #expect(try await Self.login(c, try device.get(try await Self.loginOptions(c))).status == 200)
            #expect(try await Self.login(c, try device.get(try await Self.loginOptions(c))).status == 200)
            // A copy made before those two uses signs with counter 1, below the 2 seen.
            let clone = SoftwareAuthenticator(origin: Self.origin, credentials: snapshot)
            let refused = try await Self.login(c, try clone.get(try await Self.loginOptions(c)))
            #expect(refused.status == 401 && refused.message?.contains("may have been cloned") == true, "\(refused.body)")
            #expect(try await Self.login(c, try device.get(try await Self.loginOptions(c))).status == 200, "the original goes on")
        }
    }

    @Test func anotherOriginOrRPIdIsRefused() async throws {
        try await TestServer.run { c in
            let access = try #require(try await c.anonymous()["access_token"])
            let elsewhere = SoftwareAuthenticator(origin: "https://evil.example")
            let foreign = try await Self.register(c, elsewhere, access: access)
            #expect(foreign.status == 400 && foreign.message?.contains("https://evil.example is not one of the app's") == true, "\(foreign.body)")
            let device = SoftwareAuthenticator(origin: Self.origin)
            var options = try await Self.options(c, Self.passkeys + "/options", token: access)
            if case .document(var o) = options { o["rp"] = ["id": "example.com", "name": "x"]; options = .document(o) }
            let misled = SoftwareAuthenticator(origin: Self.origin)
            let other = try await c.call(.post, Self.passkeys, json: ["credential": try misled.create(options)], token: access)
            #expect(other.status == 400 && other.message?.contains("another RP id than localhost") == true, "\(other.body)")

            #expect(try await Self.register(c, device, access: access).status == 201)
            var request = try await Self.loginOptions(c)
            if case .document(var o) = request { o["rpId"] = "example.com"; request = .document(o) }
            #expect(throws: SoftwareAuthenticator.Failure.self, "the authenticator has no credential for example.com") { try device.get(request) }
            // The same key, claimed from another page.
            let thief = SoftwareAuthenticator(origin: "http://127.0.0.1:5173", credentials: device.credentials)
            let stolen = try await Self.login(c, try thief.get(try await Self.loginOptions(c)))
            #expect(stolen.status == 400 && stolen.message?.contains("is not one of the app's") == true, "\(stolen.body)")
        }
    }

    @Test func aChangedSignatureOrClientDataIsRefused() async throws {
        try await TestServer.run { c in
            let access = try #require(try await c.anonymous()["access_token"])
            let device = SoftwareAuthenticator(origin: Self.origin)
            #expect(try await Self.register(c, device, access: access).status == 201)
            let assertion = try device.get(try await Self.loginOptions(c))
            var signature = try #require(assertion["response"]?["signature"]?.stringValue.flatMap(Base64.decode))
            signature[signature.count - 3] ^= 0x01
            let tampered = try await Self.login(c, Self.changing(assertion, "signature", .string(Base64.encode(signature, urlSafe: true))))
            #expect(
                tampered.status == 401 && tampered.message == "passkey: the signature does not verify with the registered key", "\(tampered.body)")

            // Client data of another challenge (a fresh one, so the lookup finds it): the
            // signature covers the original, and fails.
            let other = try device.get(try await Self.loginOptions(c))
            let swapped = Self.changing(other, "signature", try #require(assertion["response"]?["signature"]))
            #expect(try await Self.login(c, swapped).status == 401)
            // Flags changed on the way (user presence cleared): the signature covers them too.
            let fresh = try device.get(try await Self.loginOptions(c))
            var data = try #require(fresh["response"]?["authenticatorData"]?.stringValue.flatMap(Base64.decode))
            data[32] = 0x04
            let unsigned = try await Self.login(c, Self.changing(fresh, "authenticatorData", .string(Base64.encode(data, urlSafe: true))))
            #expect(unsigned.status == 400 && unsigned.message?.contains("flag UP") == true, "\(unsigned.body)")
            // And garbage where CBOR and JSON go is a 400 that says which.
            let junk = try await c.call(
                .post, Self.passkeys, json: ["credential": Self.changing(fresh, "attestationObject", "AAAA")], token: access)
            #expect(junk.status == 400, "\(junk.body)")
        }
    }

    @Test func packedSelfAttestationIsCheckedAndOtherFormatsRefused() async throws {
        try await TestServer.run { c in
            let access = try #require(try await c.anonymous()["access_token"])
            for (fmt, good, expected) in [("packed", true, 201), ("packed", false, 400), ("fido-u2f", true, 400)] {
                let device = SoftwareAuthenticator(origin: Self.origin)
                let options = try await Self.options(c, Self.passkeys + "/options", token: access)
                let credential = try device.create(options)
                let attestation = try CBORDecoder.decode(
                    try #require(credential["response"]?["attestationObject"]?.stringValue.flatMap(Base64.decode)))
                let authData = try #require(attestation["authData"]?.bytesValue)
                let clientData = try #require(credential["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64.decode))
                let key = try P256.Signing.PrivateKey(derRepresentation: try #require(device.credentials.first).privateKey)
                var signed = authData + Array(SHA256.hash(data: clientData))
                if !good { signed[0] ^= 1 }
                let sig = Array(try key.signature(for: signed).derRepresentation)
                let statement = CBOR.map([.init(.text("alg"), .integer(-7)), .init(.text("sig"), .bytes(sig))])
                let packed = CBOREncoder.encode(
                    .map([.init(.text("fmt"), .text(fmt)), .init(.text("attStmt"), statement), .init(.text("authData"), .bytes(authData))]))
                let reply = try await c.call(
                    .post, Self.passkeys,
                    json: ["credential": Self.changing(credential, "attestationObject", .string(Base64.encode(packed, urlSafe: true)))],
                    token: access)
                #expect(reply.status == expected, "\(fmt) \(good): \(reply.body)")
            }
        }
    }

    @Test func aPasskeyIsASecondFactorAndAnUnverifiedOneAsksForOne() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (access, totp, _) = try await TOTPHarness.enrolled(c, "s@example.com")
            // A session that used no second factor may not add a passkey once the user has TOTP.
            let stale = try await c.call(.post, Self.passkeys + "/options", token: access)
            #expect(stale.status == 401 && stale.code == "RequiresRecentLogin", "\(stale.body)")
            let later = try await TOTPHarness.now(c, advancing: 30)
            let withCode = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "s@example.com"), totp.code(at: later))
            let device = SoftwareAuthenticator(origin: Self.origin)
            #expect(try await Self.register(c, device, access: try #require(withCode["access_token"])).status == 201)
            let first = try await c.emailLogin("s@example.com", "password1")
            #expect(first.code == "MFARequired" && first.body["factors"] == ["totp", "passkey", "recovery_code"], "\(first.body)")
            let options = try #require(first.body["passkeyOptions"])
            #expect(options["allowCredentials"]?.arrayValue?.count == 1)
            let done = try await c.login(
                "mfa", ["mfaToken": .string(try #require(first["mfaToken"])), "credential": try device.get(options)])
            #expect(done.status == 200, "\(done.body)")
            #expect(try TOTPHarness.amr(done["access_token"]) == ["pwd", "pop", "mfa"])

            // A passkey whose authenticator does not verify the user is one factor: the user's TOTP is asked for.
            let plain = SoftwareAuthenticator(origin: Self.origin, verifiesUser: false)
            let fresh = try #require(done["access_token"])
            #expect(try await Self.register(c, plain, access: fresh, name: "key").status == 201)
            let step = try await Self.login(c, try plain.get(try await Self.loginOptions(c)))
            #expect(step.code == "MFARequired", "\(step.body)")
            let now = try await TOTPHarness.now(c, advancing: 30)
            let completed = try await TOTPHarness.complete(c, try #require(step["mfaToken"]), totp.code(at: now))
            #expect(completed.status == 200 && completed["user_id"] == done["user_id"], "\(completed.body)")
            #expect(try TOTPHarness.amr(completed["access_token"]) == ["pop", "otp", "mfa"])
        }
    }

    /// A second factor is another kind of proof than the first: after a login with a passkey
    /// that did not verify the user, no passkey answers the second step (neither the same one,
    /// which a stolen security key would be, nor another), and the answer offers none; a code
    /// does. A passkey that verified the user is two factors and needs no step.
    @Test func aPasskeyNeverAnswersTheSecondStepOfAPasskeyLogin() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            let (_, totp, recovery) = try await TOTPHarness.enrolled(c, "k@example.com")
            let at = try await TOTPHarness.now(c, advancing: 30)
            let done = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "k@example.com"), totp.code(at: at))
            let access = try #require(done["access_token"])
            let key = SoftwareAuthenticator(origin: Self.origin, verifiesUser: false)
            let other = SoftwareAuthenticator(origin: Self.origin, verifiesUser: false)
            let verifying = SoftwareAuthenticator(origin: Self.origin)
            for (device, name) in [(key, "key"), (other, "other"), (verifying, "phone")] {
                #expect(try await Self.register(c, device, access: access, name: name).status == 201)
            }

            let step = try await Self.login(c, try key.get(try await Self.loginOptions(c)))
            #expect(step.code == "MFARequired", "\(step.body)")
            #expect(step.body["factors"] == ["totp", "recovery_code"], "\(step.body)")
            #expect(step.body["passkeyOptions"] == nil)
            let token = try #require(step["mfaToken"])
            for device in [key, other, verifying] {
                // The step offers no challenge to sign (were it to offer one, its answer would
                // be refused too): an answer over a challenge of its own is refused.
                var options = step.body["passkeyOptions"]
                if options == nil { options = try await Self.loginOptions(c) }
                let answer = try device.get(try #require(options))
                let refused = try await c.login("mfa", ["mfaToken": .string(token), "credential": answer])
                #expect(refused.status == 401 && refused.code == "InvalidMFACode", "\(refused.body)")
                #expect(refused.message?.contains("first step of this login was a passkey") == true, "\(refused.body)")
            }
            let completed = try await TOTPHarness.complete(c, token, recovery[0])
            #expect(completed.status == 200, "\(completed.body)")
            #expect(try TOTPHarness.amr(completed["access_token"]) == ["pop", "otp", "mfa"])

            let both = try await Self.login(c, try verifying.get(try await Self.loginOptions(c)))
            #expect(both.status == 200, "\(both.body)")
            #expect(try TOTPHarness.amr(both["access_token"]) == ["pop", "mfa"])
            // After a password, a passkey is the second factor, and the step offers all three.
            let first = try await c.emailLogin("k@example.com", "password1")
            #expect(first.body["factors"] == ["totp", "passkey", "recovery_code"], "\(first.body)")
            #expect(first.body["passkeyOptions"]?["allowCredentials"]?.arrayValue?.count == 3)
        }
    }

    @Test func removingAPasskeyEndsItsSessionsAndNeedsARecentLogin() async throws {
        try await TestServer.run { c in
            let access = try #require(try await c.anonymous()["access_token"])
            let device = SoftwareAuthenticator(origin: Self.origin)
            let id = try #require(try await Self.register(c, device, access: access)["id"])
            let session = try await Self.login(c, try device.get(try await Self.loginOptions(c)))
            let opened = try #require(session["refresh_token"])
            try await TOTPHarness.now(c, advancing: 601)
            #expect(try await c.call(.delete, Self.passkeys + "/" + id, token: access).code == "RequiresRecentLogin")
            let recent = try await Self.login(c, try device.get(try await Self.loginOptions(c)))
            let removed = try await c.call(.delete, Self.passkeys + "/" + id, token: try #require(recent["access_token"]))
            #expect(removed.status == 200, "\(removed.body)")
            #expect(try await c.refresh(opened).status == 401, "a session the passkey opened ends with it")
            let gone = try await Self.login(c, try device.get(try await Self.loginOptions(c)))
            #expect(gone.status == 401 && gone.message?.contains("no passkey of this app has that id") == true, "\(gone.body)")
        }
    }

    /// A passkey login's options and its answer count against the app's `login` rate limit.
    @Test func passkeyLoginsAreRateLimited() async throws {
        var app = AppConfiguration(id: "local")
        app.rateLimits.enabled = true
        app.rateLimits.limits[.login] = .init(perAddress: 3, perAccount: 0, windowSeconds: 60)
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let access = try #require(try await c.anonymous()["access_token"])
            let device = SoftwareAuthenticator(origin: Self.origin)
            #expect(try await Self.register(c, device, access: access).status == 201)
            let options = try await Self.loginOptions(c)
            #expect(try await Self.login(c, try device.get(options)).status == 200)
            #expect(try await c.call(.post, c.appRoute + "/auth/providers/passkey/options").status == 200)
            let refused = try await c.call(.post, c.appRoute + "/auth/providers/passkey/options")
            #expect(refused.status == 429 && refused.retryAfter != nil, "\(refused.body)")
            #expect(try await Self.login(c, try device.get(options)).status == 429)
        }
    }

    @Test func anAppWithoutWebAuthnHasNoPasskeysOutsideDevMode() async throws {
        try await TestServer.run(TestServer.configuration(dev: false)) { c in
            let reply = try await c.call(.post, c.appRoute + "/auth/providers/passkey/options")
            #expect(reply.status == 404 && reply.code == "AuthProviderNotFound", "\(reply.body)")
        }
    }
}
