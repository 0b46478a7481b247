// SPDX-License-Identifier: Apache-2.0
import Crypto
import Synchronization

/// A passkey authenticator in software, for scripts and tests: it answers
/// `navigator.credentials.create` and `.get` options as a browser with a platform
/// authenticator does (the same `PublicKeyCredential` JSON, `clientDataJSON` as browsers
/// write it, attestation `none`, ES256 keys, discoverable credentials that verify the user), so
/// a CI job can sign up and sign in with passkeys with no browser.
///
/// Its credentials (private keys included: secrets) are in memory; ``exported`` and
/// ``credentials(_:)`` move them to and from a file, or to a browser's virtual
/// authenticator (the private key is PKCS#8, as Chrome's DevTools protocol takes it).
public final class SoftwareAuthenticator: Sendable {
    /// One discoverable credential.
    public struct Credential: Sendable, Equatable {
        public var id: [UInt8]
        public var rpId: String
        public var userHandle: [UInt8]
        public var userName: String
        /// The P-256 private key, PKCS#8 DER.
        public var privateKey: [UInt8]
        public var signCount: UInt32

        public init(id: [UInt8], rpId: String, userHandle: [UInt8], userName: String, privateKey: [UInt8], signCount: UInt32) {
            self.id = id
            self.rpId = rpId
            self.userHandle = userHandle
            self.userName = userName
            self.privateKey = privateKey
            self.signCount = signCount
        }
    }

    /// What the authenticator refuses, as a browser would report it.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var name: String
        public var message: String
        public var description: String { "\(name): \(message)" }
    }

    /// The page origin it claims, as a browser writes it in `clientDataJSON`.
    public let origin: String
    /// Whether it verifies the user (a PIN or biometric: flag UV) at each use.
    public let verifiesUser: Bool
    private let store: Mutex<[Credential]>
    private let saving: (@Sendable ([Credential]) throws -> Void)?

    /// An authenticator for pages of `origin`, holding `credentials`; `saving` is called with
    /// every credential after each change (a new one, a counter that moved).
    public init(
        origin: String, verifiesUser: Bool = true, credentials: [Credential] = [], saving: (@Sendable ([Credential]) throws -> Void)? = nil
    ) {
        self.origin = origin
        self.verifiesUser = verifiesUser
        store = Mutex(credentials)
        self.saving = saving
    }

    /// The credentials it holds.
    public var credentials: [Credential] {
        get { store.withLock { $0 } }
    }

    /// Replaces its credentials (a copy of another authenticator's: a clone).
    public func replaceCredentials(_ credentials: [Credential]) throws {
        store.withLock { $0 = credentials }
        try saving?(credentials)
    }

    /// The host of ``origin``: the default RP id.
    var originHost: String {
        let rest = origin.split(separator: "://", maxSplits: 1).last.map(String.init) ?? origin
        return rest.split(separator: ":").first.map(String.init) ?? rest
    }

    // MARK: navigator.credentials.create

    /// A new credential for `options` (`PublicKeyCredentialCreationOptionsJSON`, the
    /// `publicKey` member): its `PublicKeyCredential` JSON.
    public func create(_ options: EJSON) throws -> EJSON {
        let rpId = options["rp"]?["id"]?.stringValue ?? originHost
        guard let challenge = options["challenge"]?.stringValue, let handle = options["user"]?["id"]?.stringValue,
            let userHandle = Base64.decode(handle)
        else { throw Failure(name: "TypeError", message: "the options lack challenge or user.id") }
        let algorithms = options["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.integerValue } ?? []
        guard algorithms.contains(-7) else { throw Failure(name: "NotSupportedError", message: "ES256 (-7) is not among pubKeyCredParams") }
        let excluded = Set(options["excludeCredentials"]?.arrayValue?.compactMap { $0["id"]?.stringValue.flatMap(Base64.decode) } ?? [])
        if store.withLock({ $0.contains { $0.rpId == rpId && excluded.contains($0.id) } }) {
            throw Failure(name: "InvalidStateError", message: "this authenticator holds an excluded credential already")
        }
        let key = P256.Signing.PrivateKey()
        let id = SystemRandomNumberGenerator.bytes(32)
        let raw = key.publicKey.rawRepresentation
        let cose = CBOREncoder.encode(
            .map([
                .init(.integer(1), .integer(2)), .init(.integer(3), .integer(-7)), .init(.integer(-1), .integer(1)),
                .init(.integer(-2), .bytes(Array(raw.prefix(32)))), .init(.integer(-3), .bytes(Array(raw.suffix(32)))),
            ]))
        let credential = Credential(
            id: id, rpId: rpId, userHandle: userHandle, userName: options["user"]?["name"]?.stringValue ?? "",
            privateKey: Array(key.derRepresentation), signCount: 0)
        // Flags: user present, user verified (when it does), attested credential data.
        var authData = Array(SHA256.hash(data: Array(rpId.utf8))) + [verifiesUser ? 0x45 : 0x41, 0, 0, 0, 0]
        authData += [UInt8](repeating: 0, count: 16) + [UInt8(id.count >> 8), UInt8(id.count & 0xff)] + id + cose
        let attestation = CBOREncoder.encode(
            .map([.init(.text("fmt"), .text("none")), .init(.text("attStmt"), .map([])), .init(.text("authData"), .bytes(authData))]))
        let clientData = Self.clientData("webauthn.create", challenge: challenge, origin: origin)
        try add(credential)
        let b64 = { (bytes: [UInt8]) in EJSON.string(Base64.encode(bytes, urlSafe: true)) }
        return [
            "id": b64(id), "rawId": b64(id), "type": "public-key", "authenticatorAttachment": "platform",
            "clientExtensionResults": [:],
            "response": [
                "clientDataJSON": b64(clientData), "attestationObject": b64(attestation), "authenticatorData": b64(authData),
                "transports": ["internal"], "publicKeyAlgorithm": .int64(-7), "publicKey": b64(Array(key.publicKey.derRepresentation)),
            ],
        ]
    }

    // MARK: navigator.credentials.get

    /// An assertion for `options` (`PublicKeyCredentialRequestOptionsJSON`): with
    /// `allowCredentials`, by the first of those it holds; without, by its newest credential for
    /// the RP (a discoverable login), or the one of `credentialId` when given.
    public func get(_ options: EJSON, credentialId: [UInt8]? = nil) throws -> EJSON {
        let rpId = options["rpId"]?.stringValue ?? originHost
        guard let challenge = options["challenge"]?.stringValue else { throw Failure(name: "TypeError", message: "the options lack challenge") }
        let allowed = options["allowCredentials"]?.arrayValue?.compactMap { $0["id"]?.stringValue.flatMap(Base64.decode) } ?? []
        let (credential, count): (Credential, UInt32) = try store.withLock { credentials in
            guard
                let index = credentials.lastIndex(where: {
                    $0.rpId == rpId && (allowed.isEmpty || allowed.contains($0.id)) && (credentialId == nil || $0.id == credentialId)
                })
            else { throw Failure(name: "NotAllowedError", message: "this authenticator holds no credential for \(rpId) that the options allow") }
            credentials[index].signCount += 1
            return (credentials[index], credentials[index].signCount)
        }
        try saving?(credentials)
        var authData = Array(SHA256.hash(data: Array(rpId.utf8))) + [verifiesUser ? 0x05 : 0x01]
        authData += [UInt8(count >> 24), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)]
        let clientData = Self.clientData("webauthn.get", challenge: challenge, origin: origin)
        let key = try P256.Signing.PrivateKey(derRepresentation: credential.privateKey)
        let signature = try key.signature(for: authData + Array(SHA256.hash(data: clientData)))
        let b64 = { (bytes: [UInt8]) in EJSON.string(Base64.encode(bytes, urlSafe: true)) }
        return [
            "id": b64(credential.id), "rawId": b64(credential.id), "type": "public-key", "authenticatorAttachment": "platform",
            "clientExtensionResults": [:],
            "response": [
                "clientDataJSON": b64(clientData), "authenticatorData": b64(authData), "signature": b64(Array(signature.derRepresentation)),
                "userHandle": b64(credential.userHandle),
            ],
        ]
    }

    private func add(_ credential: Credential) throws {
        let all = store.withLock { credentials in
            credentials.append(credential)
            return credentials
        }
        try saving?(all)
    }

    /// `clientDataJSON` as browsers write it: these members, in this order.
    static func clientData(_ type: String, challenge: String, origin: String) -> [UInt8] {
        let doc: EJSONDocument = ["type": .string(type), "challenge": .string(challenge), "origin": .string(origin), "crossOrigin": false]
        return EJSON.document(doc).encoded(.relaxed)
    }

    // MARK: moving credentials

    /// The credentials as JSON: `[{id, rpId, userHandle, userName, privateKey, signCount}]`
    /// with base64url bytes (the private keys: a secret).
    public var exported: EJSON {
        .array(
            credentials.map { c in
                [
                    "id": .string(Base64.encode(c.id, urlSafe: true)), "rpId": .string(c.rpId),
                    "userHandle": .string(Base64.encode(c.userHandle, urlSafe: true)), "userName": .string(c.userName),
                    "privateKey": .string(Base64.encode(c.privateKey, urlSafe: true)), "signCount": .int64(Int64(c.signCount)),
                ]
            })
    }

    /// The credentials of ``exported``'s JSON; nil when it is not that.
    public static func credentials(_ json: EJSON) -> [Credential]? {
        guard case .array(let items) = json else { return nil }
        var out: [Credential] = []
        for item in items {
            guard let id = item["id"]?.stringValue.flatMap(Base64.decode), let rpId = item["rpId"]?.stringValue,
                let handle = item["userHandle"]?.stringValue.flatMap(Base64.decode),
                let key = item["privateKey"]?.stringValue.flatMap(Base64.decode), let count = item["signCount"]?.integerValue,
                count >= 0, count <= Int64(UInt32.max), (try? P256.Signing.PrivateKey(derRepresentation: key)) != nil
            else { return nil }
            out.append(
                Credential(
                    id: id, rpId: rpId, userHandle: handle, userName: item["userName"]?.stringValue ?? "", privateKey: key,
                    signCount: UInt32(count)))
        }
        return out
    }
}
