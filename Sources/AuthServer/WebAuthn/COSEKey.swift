// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto
import _CryptoExtras

/// A passkey's public key, a COSE_Key (RFC 9053) of one of the algorithms authsh accepts:
/// ES256 (P-256), EdDSA (Ed25519) and RS256 (RSA, 2048 bits or more).
struct COSEKey: Sendable {
    /// COSE algorithm identifiers.
    enum Algorithm: Int64, Sendable, CaseIterable {
        case es256 = -7
        case eddsa = -8
        case rs256 = -257
    }

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    let algorithm: Algorithm
    private let key: Key

    /// Why a key is refused, in a sentence that names the field.
    struct Refusal: Error {
        let reason: String
    }

    /// The key of a COSE_Key map.
    init(_ item: CBOR) throws(Refusal) {
        guard case .map = item else { throw Refusal(reason: "the public key is not a COSE_Key map") }
        guard let alg = item[3]?.integerValue, let algorithm = Algorithm(rawValue: alg) else {
            throw Refusal(
                reason: "the public key's algorithm (COSE alg \(item[3]?.integerValue.map(String.init) ?? "missing")) is not ES256, EdDSA or RS256")
        }
        self.algorithm = algorithm
        let kty = item[1]?.integerValue
        switch algorithm {
        case .es256:
            guard kty == 2, item[-1]?.integerValue == 1, let x = item[-2]?.bytesValue, let y = item[-3]?.bytesValue, x.count == 32,
                y.count == 32, let k = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { throw Refusal(reason: "the ES256 public key is not a P-256 point (kty 2, crv 1, 32-byte x and y)") }
            key = .p256(k)
        case .eddsa:
            guard kty == 1, item[-1]?.integerValue == 6, let x = item[-2]?.bytesValue, x.count == 32,
                let k = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw Refusal(reason: "the EdDSA public key is not an Ed25519 key (kty 1, crv 6, 32-byte x)") }
            key = .ed25519(k)
        case .rs256:
            guard kty == 3, let n = item[-1]?.bytesValue, let e = item[-2]?.bytesValue, n.count >= 256, n.count <= 512, !e.isEmpty,
                e.count <= 8, let k = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw Refusal(reason: "the RS256 public key is not an RSA key of 2048 to 4096 bits (kty 3, n, e)") }
            key = .rsa(k)
        }
    }

    /// Whether `signature` (ECDSA in DER, as WebAuthn sends it; Ed25519 raw; RSA PKCS#1 v1.5
    /// over SHA-256) signs `data`.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .p256(let k):
            guard let s = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return k.isValidSignature(s, for: SHA256.hash(data: data))
        case .ed25519(let k):
            return k.isValidSignature(signature, for: data)
        case .rsa(let k):
            return k.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}
