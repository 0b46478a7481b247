// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Crypto
import Foundation
import Testing
import _CryptoExtras

/// The three key types a passkey may have, each verifying its own signatures and no other's,
/// and the COSE maps that are refused.
@Suite struct COSEKeyTests {
    static let data = Array("authenticator data and client data hash".utf8)

    static func map(_ pairs: [(Int64, CBOR)]) -> CBOR { .map(pairs.map { CBOR.Pair(.integer($0.0), $0.1) }) }

    @Test func es256() throws {
        let key = P256.Signing.PrivateKey()
        let raw = Array(key.publicKey.rawRepresentation)
        let cose = try COSEKey(
            Self.map([(1, .integer(2)), (3, .integer(-7)), (-1, .integer(1)), (-2, .bytes(Array(raw[..<32]))), (-3, .bytes(Array(raw[32...])))]))
        #expect(cose.algorithm == .es256)
        let signature = Array(try key.signature(for: Self.data).derRepresentation)
        #expect(cose.isValidSignature(signature, for: Self.data))
        #expect(!cose.isValidSignature(signature, for: Self.data + [0]))
        #expect(!cose.isValidSignature(Array(try key.signature(for: Self.data).rawRepresentation), for: Self.data), "WebAuthn's ES256 is DER")
    }

    @Test func ed25519() throws {
        let key = Curve25519.Signing.PrivateKey()
        let cose = try COSEKey(
            Self.map([(1, .integer(1)), (3, .integer(-8)), (-1, .integer(6)), (-2, .bytes(Array(key.publicKey.rawRepresentation)))]))
        #expect(cose.algorithm == .eddsa)
        let signature = Array(try key.signature(for: Self.data))
        #expect(cose.isValidSignature(signature, for: Self.data))
        #expect(!cose.isValidSignature(signature, for: Array(Self.data.dropLast())))
    }

    @Test func rs256() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try key.publicKey.getKeyPrimitives()
        let cose = try COSEKey(
            Self.map([(1, .integer(3)), (3, .integer(-257)), (-1, .bytes(Array(primitives.modulus))), (-2, .bytes(Array(primitives.publicExponent)))])
        )
        #expect(cose.algorithm == .rs256)
        let signature = Array(try key.signature(for: Self.data, padding: .insecurePKCS1v1_5).rawRepresentation)
        #expect(cose.isValidSignature(signature, for: Self.data))
        let pss = Array(try key.signature(for: Self.data, padding: .PSS).rawRepresentation)
        #expect(!cose.isValidSignature(pss, for: Self.data), "RS256 is PKCS#1 v1.5")
    }

    @Test(
        arguments: [
            ([(1, CBOR.integer(2)), (3, .integer(-35))], "not ES256, EdDSA or RS256"),
            ([(1, .integer(2)), (3, .integer(-7)), (-1, .integer(1)), (-2, .bytes([1])), (-3, .bytes([2]))], "not a P-256 point"),
            (
                [
                    (1, .integer(2)), (3, .integer(-7)), (-1, .integer(1)), (-2, .bytes(Array(repeating: 1, count: 32))),
                    (-3, .bytes(Array(repeating: 2, count: 32))),
                ], "not a P-256 point"
            ),
            ([(1, .integer(1)), (3, .integer(-8)), (-1, .integer(4)), (-2, .bytes(Array(repeating: 1, count: 32)))], "not an Ed25519 key"),
            (
                [(1, .integer(3)), (3, .integer(-257)), (-1, .bytes(Array(repeating: 0xff, count: 128))), (-2, .bytes([1, 0, 1]))],
                "2048 to 4096 bits"
            ),
        ] as [([(Int64, CBOR)], String)])
    func refusals(pairs: [(Int64, CBOR)], reason: String) {
        do {
            _ = try COSEKey(Self.map(pairs))
            Issue.record("accepted")
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }
}
