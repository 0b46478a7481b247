// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Crypto
import Testing

/// The server's own HS256 signer and verifier, below the routes: its header fast path (our
/// own headers are recognised byte for byte) and the general path (any header is decoded).
@Suite(.timeLimit(.minutes(5))) struct HS256TokensTests {
    static let key = SymmetricKey(data: Array(repeating: UInt8(7), count: 32))
    static let tokens = HS256Tokens(keys: ["app": key, "other": SymmetricKey(data: Array(repeating: UInt8(9), count: 32))])
    static let claims: EJSONDocument = [
        "exp": .int64(2_000_000_000), "iat": .int64(1_700_000_000), "sub": "user", "typ": "refresh", "baas_id": "session",
        "baas_domain_id": "app", "user_data": ["plan": "pro"],
    ]

    /// A token made by hand: `header` as given, HMAC-SHA256 with `key`.
    static func token(header: String, payload: EJSONDocument = claims, key: SymmetricKey = key) -> String {
        let signed = Base64.encode(Array(header.utf8), urlSafe: true) + "." + Base64.encode(EJSON.document(payload).encoded(.relaxed), urlSafe: true)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signed.utf8), using: key)
        return signed + "." + Base64.encode(Array(mac), urlSafe: true)
    }

    static func claims(of outcome: HS256Tokens.Outcome) -> IssuedTokenClaims? {
        if case .verified(let claims) = outcome { claims } else { nil }
    }

    @Test func ownTokensVerifyWithTheirClaims() throws {
        let token = try #require(Self.tokens.sign(Self.claims, kid: "app"))
        let claims = try #require(Self.claims(of: Self.tokens.verify(token)))
        #expect(claims.sub == "user" && claims.typ == "refresh" && claims.exp == 2_000_000_000 && claims.iat == 1_700_000_000)
        #expect(claims.baas_id == "session" && claims.baas_domain_id == "app" && claims.user_data == ["plan": "pro"])
        #expect(Self.tokens.sign(Self.claims, kid: "nobody") == nil)
    }

    /// A header written another way (another key order and spacing, as other JWT libraries and
    /// earlier versions write it) is decoded and still verifies against the key its `kid` names.
    @Test func anotherHeaderLayoutIsDecoded() throws {
        let token = Self.token(header: #"{ "typ": "JWT", "kid": "app", "alg": "HS256" }"#)
        #expect(Self.claims(of: Self.tokens.verify(token))?.sub == "user")
    }

    /// Signed with the other app's key while naming this one, in our layout and in another.
    @Test(arguments: [#"{"alg":"HS256","kid":"app","typ":"JWT"}"#, #"{"kid":"app","alg":"HS256"}"#])
    func aSignatureWithAnotherKeyIsRefused(header: String) {
        let otherKey = SymmetricKey(data: Array(repeating: UInt8(9), count: 32))
        guard case .refused = Self.tokens.verify(Self.token(header: header, key: otherKey)) else {
            Issue.record("a token signed with another key was not refused")
            return
        }
    }

    @Test(arguments: [#"{"alg":"none","kid":"app"}"#, #"{"alg":"HS256","kid":"nobody"}"#, #"{"alg":"RS256","kid":"app"}"#, "not json"])
    func headersThatAreNotOurHS256AreLeftToJWTKit(header: String) {
        guard case .notHandled = Self.tokens.verify(Self.token(header: header)) else {
            Issue.record("header \(header) was handled")
            return
        }
    }

    @Test func aTamperedPayloadIsRefused() throws {
        let token = try #require(Self.tokens.sign(Self.claims, kid: "app"))
        var parts = token.split(separator: ".").map(String.init)
        var forged = Self.claims
        forged["sub"] = "admin"
        parts[1] = Base64.encode(EJSON.document(forged).encoded(.relaxed), urlSafe: true)
        guard case .refused = Self.tokens.verify(parts.joined(separator: ".")) else {
            Issue.record("a tampered payload was not refused")
            return
        }
    }
}
