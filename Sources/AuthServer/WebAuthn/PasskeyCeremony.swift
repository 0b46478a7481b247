// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto

/// The checks of WebAuthn Level 2's two ceremonies (sections 7.1 and 7.2) on what a browser,
/// or authsh's software authenticator, sends: the JSON forms of `PublicKeyCredential`
/// (`toJSON()`: `id`, `rawId`, `type`, `response` with base64url fields). Every refusal is a
/// ServiceError that says which check failed.
enum PasskeyCeremony {
    /// A credential a registration proved.
    struct Registered: Sendable {
        var id: String
        var publicKey: [UInt8]
        var algorithm: COSEKey.Algorithm
        var signCount: UInt32
        var aaguid: [UInt8]
        var userVerified: Bool
        var backupEligible: Bool
        var backedUp: Bool
        var transports: [String]
    }

    /// What an assertion proved.
    struct Asserted: Sendable {
        var signCount: UInt32
        var userVerified: Bool
        var backedUp: Bool
    }

    /// The parts every response has: its credential id (base64url) and its client data.
    struct Response {
        var id: String
        var clientDataJSON: [UInt8]
        var clientData: ClientData
        var fields: EJSONDocument
    }

    static func refused(_ reason: String) -> ServiceError { ServiceError(.invalidParameter, "passkey: \(reason)") }

    /// Reads the common parts of a `PublicKeyCredential` JSON.
    static func response(_ credential: EJSON?) throws(ServiceError) -> Response {
        guard case .document(let c)? = credential else { throw refused("credential must be a PublicKeyCredential's JSON object") }
        guard c["type"]?.stringValue == "public-key" else { throw refused("credential.type must be \"public-key\"") }
        guard let id = c["id"]?.stringValue, let raw = Base64.decode(id), !raw.isEmpty,
            raw.count <= AuthenticatorData.maxCredentialIdLength, Base64.encode(raw, urlSafe: true) == id
        else { throw refused("credential.id must be the base64url credential id") }
        if let rawId = c["rawId"]?.stringValue, rawId != id { throw refused("credential.rawId differs from credential.id") }
        guard case .document(let r)? = c["response"] else { throw refused("credential.response is missing") }
        let clientDataJSON = try bytes(r, "clientDataJSON")
        do throws(COSEKey.Refusal) {
            return Response(id: id, clientDataJSON: clientDataJSON, clientData: try ClientData(clientDataJSON), fields: r)
        } catch {
            throw refused(error.reason)
        }
    }

    /// A base64url field of the response.
    static func bytes(_ r: EJSONDocument, _ key: String) throws(ServiceError) -> [UInt8] {
        guard let text = r[key]?.stringValue, let bytes = Base64.decode(text) else {
            throw refused("credential.response.\(key) must be base64url")
        }
        return bytes
    }

    /// The client data's checks: its type, the challenge the server issued, an allowed origin.
    static func checkClientData(_ data: ClientData, type: String, challenge: String, config: WebAuthnConfiguration) throws(ServiceError) {
        guard data.type == type else { throw refused("clientDataJSON.type is \"\(printable(data.type, limit: 40))\", not \(type)") }
        guard Secrets.constantTimeEqual(Array(data.challenge.utf8), Array(challenge.utf8)) else {
            throw refused("clientDataJSON.challenge is not the challenge of this ceremony")
        }
        guard config.allows(origin: data.origin) else {
            throw refused("the page's origin \(printable(data.origin, limit: 100)) is not one of the app's (webauthn.origins)")
        }
        guard !data.crossOrigin else { throw refused("a cross-origin frame may not use the app's passkeys") }
    }

    /// The authenticator data's checks: the RP id's hash, user presence and, when required, verification.
    static func checkAuthenticatorData(_ data: AuthenticatorData, config: WebAuthnConfiguration) throws(ServiceError) {
        guard Secrets.constantTimeEqual(data.rpIdHash, Array(SHA256.hash(data: Array(config.rpId.utf8)))) else {
            throw refused("the authenticator signed for another RP id than \(config.rpId)")
        }
        guard data.userPresent else { throw refused("the authenticator did not check the user's presence (flag UP)") }
        if config.userVerification == .required && !data.userVerified {
            throw refused("this app requires user verification (a PIN or biometric: flag UV)")
        }
    }

    /// Registration (`navigator.credentials.create`) of the response `r` (``response(_:)``):
    /// the client data, the attestation object (formats `none` and `packed` self-attestation),
    /// the authenticator data and its new key.
    static func verifyRegistration(_ r: Response, challenge: String, config: WebAuthnConfiguration) throws(ServiceError) -> Registered {
        try checkClientData(r.clientData, type: "webauthn.create", challenge: challenge, config: config)
        let attestation: CBOR
        let attestationBytes = try bytes(r.fields, "attestationObject")
        do throws(CBORError) {
            attestation = try CBORDecoder.decode(attestationBytes)
        } catch {
            throw refused("attestationObject is not CBOR: \(error.message)")
        }
        guard let fmt = attestation["fmt"]?.textValue, let authBytes = attestation["authData"]?.bytesValue,
            case .map(let statement)? = attestation["attStmt"]
        else { throw refused("attestationObject lacks fmt, attStmt or authData") }
        let data: AuthenticatorData
        let key: COSEKey
        do throws(COSEKey.Refusal) {
            data = try AuthenticatorData(authBytes)
            guard let created = data.credential else { throw COSEKey.Refusal(reason: "the authenticator data holds no new credential (flag AT)") }
            key = try COSEKey(try decodeKey(created.publicKey))
        } catch {
            throw refused(error.reason)
        }
        try checkAuthenticatorData(data, config: config)
        guard let created = data.credential, Base64.encode(created.id, urlSafe: true) == r.id else {
            throw refused("the authenticator data's credential id is not credential.id")
        }
        switch fmt {
        case "none":
            guard statement.isEmpty else { throw refused("attestation format none has an empty attStmt") }
        case "packed":
            guard statement.allSatisfy({ $0.key == .text("alg") || $0.key == .text("sig") }) else {
                throw refused("packed attestation with a certificate (x5c) is not supported: ask for attestation \"none\"")
            }
            guard attestation["attStmt"]?["alg"]?.integerValue == key.algorithm.rawValue, let sig = attestation["attStmt"]?["sig"]?.bytesValue
            else { throw refused("packed self-attestation's alg is not the credential's, or it has no sig") }
            guard key.isValidSignature(sig, for: authBytes + Array(SHA256.hash(data: r.clientDataJSON))) else {
                throw refused("packed self-attestation's signature does not verify")
            }
        default:
            throw refused("attestation format \(printable(fmt, limit: 20)) is not supported (none, packed)")
        }
        // Hints for later options (`usb`, `internal`, `hybrid`, ...): kept only in their shape.
        let transports =
            r.fields["transports"]?.arrayValue?.compactMap(\.stringValue)
            .filter { (1...32).contains($0.count) && $0.allSatisfy { ($0 >= "a" && $0 <= "z") || $0 == "-" } }.prefix(8) ?? []
        return Registered(
            id: r.id, publicKey: created.publicKey, algorithm: key.algorithm, signCount: data.signCount, aaguid: created.aaguid,
            userVerified: data.userVerified, backupEligible: data.backupEligible, backedUp: data.backedUp, transports: Array(transports))
    }

    /// Authentication (`navigator.credentials.get`) with the stored key of the credential the
    /// response names: the client data, the authenticator data, and the signature over
    /// `authenticatorData || SHA-256(clientDataJSON)`. The caller checks the counter.
    static func verifyAssertion(_ r: Response, challenge: String, config: WebAuthnConfiguration, publicKey: [UInt8]) throws(ServiceError)
        -> Asserted
    {
        try checkClientData(r.clientData, type: "webauthn.get", challenge: challenge, config: config)
        let authBytes = try bytes(r.fields, "authenticatorData")
        let signature = try bytes(r.fields, "signature")
        let data: AuthenticatorData
        let key: COSEKey
        do throws(COSEKey.Refusal) {
            data = try AuthenticatorData(authBytes)
            key = try COSEKey(try decodeKey(publicKey))
        } catch {
            throw refused(error.reason)
        }
        try checkAuthenticatorData(data, config: config)
        guard key.isValidSignature(signature, for: authBytes + Array(SHA256.hash(data: r.clientDataJSON))) else {
            throw ServiceError(.authError, "passkey: the signature does not verify with the registered key")
        }
        return Asserted(signCount: data.signCount, userVerified: data.userVerified, backedUp: data.backedUp)
    }

    private static func decodeKey(_ bytes: [UInt8]) throws(COSEKey.Refusal) -> CBOR {
        do throws(CBORError) {
            return try CBORDecoder.decode(bytes)
        } catch {
            throw COSEKey.Refusal(reason: "the public key is not CBOR: \(error.message)")
        }
    }
}
