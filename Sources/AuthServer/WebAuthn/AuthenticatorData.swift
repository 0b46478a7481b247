// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An authenticator's data (WebAuthn Level 2, section 6.1): the RP id's hash, the flags, the
/// signature counter and, at registration, the new credential with its public key.
struct AuthenticatorData: Sendable {
    /// The new credential of a registration (attested credential data).
    struct Credential: Sendable {
        var aaguid: [UInt8]
        var id: [UInt8]
        /// The COSE_Key as the authenticator encoded it: what the store keeps.
        var publicKey: [UInt8]
    }

    let rpIdHash: [UInt8]
    let flags: UInt8
    let signCount: UInt32
    let credential: Credential?

    var userPresent: Bool { flags & 0x01 != 0 }
    var userVerified: Bool { flags & 0x04 != 0 }
    var backupEligible: Bool { flags & 0x08 != 0 }
    var backedUp: Bool { flags & 0x10 != 0 }

    /// Credential ids are at most 1023 bytes (WebAuthn Level 3).
    static let maxCredentialIdLength = 1023

    /// Reads `bytes`, all of them; the refusal names what is wrong.
    init(_ bytes: [UInt8]) throws(COSEKey.Refusal) {
        guard bytes.count >= 37 else { throw COSEKey.Refusal(reason: "authenticator data is \(bytes.count) bytes, fewer than 37") }
        rpIdHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = 37
        if flags & 0x40 != 0 {
            guard bytes.count >= position + 18 else { throw COSEKey.Refusal(reason: "attested credential data is cut short") }
            let aaguid = Array(bytes[position..<position + 16])
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length > 0, length <= Self.maxCredentialIdLength, bytes.count >= position + length else {
                throw COSEKey.Refusal(reason: "the credential id's length (\(length)) is not 1 to 1023 bytes within the data")
            }
            let id = Array(bytes[position..<position + length])
            position += length
            let end: Int
            do throws(CBORError) {
                (_, end) = try CBORDecoder.decodePrefix(bytes[position...])
            } catch {
                throw COSEKey.Refusal(reason: "the credential public key is not CBOR: \(error.message)")
            }
            credential = Credential(aaguid: aaguid, id: id, publicKey: Array(bytes[position..<end]))
            position = end
        } else {
            credential = nil
        }
        if flags & 0x80 != 0 {
            let parsed: (CBOR, Int)
            do throws(CBORError) {
                parsed = try CBORDecoder.decodePrefix(bytes[position...])
            } catch {
                throw COSEKey.Refusal(reason: "the extensions are not CBOR: \(error.message)")
            }
            guard case .map = parsed.0 else { throw COSEKey.Refusal(reason: "the extensions are not a CBOR map") }
            position = parsed.1
        }
        guard position == bytes.count else { throw COSEKey.Refusal(reason: "\(bytes.count - position) bytes after the authenticator data") }
    }
}
