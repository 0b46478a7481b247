// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Crypto

/// Values the server hands to anyone who asks and takes back once: an OAuth flow's `state`, a
/// passkey ceremony's challenge. Handing one out stores nothing: what the server must find
/// again travels inside the value, sealed (AES-GCM, authenticated and encrypted) under the
/// server's own key, bound to its kind, app and expiry. Only a value's use is written, as a
/// ``SealedSignIn`` with no content under the value's digest, so each is taken once on every
/// instance (the store's primary key), and no number of starts fills any table.
///
/// The key is 32 random bytes kept with the signing keys (app `server/`), made by the first
/// instance that needs it, so every instance on a database opens the others' values.
struct SealedStates: Sendable {
    private let key: SymmetricKey
    let store: any SignInStore & SigningKeyStore

    /// The longest sealed value taken back (an OAuth state with a link's access token and a
    /// long redirect stays well under it).
    static let maxLength = 8192

    init(store: any SignInStore & SigningKeyStore) async throws {
        self.store = store
        key = SymmetricKey(data: try await store.signingKey(app: "server/", algorithm: "sealed-state") { Secrets.randomBytes(32) })
    }

    /// `content`, for `app`, valid until `expires`, sealed: base64url text.
    func seal(_ content: EJSONDocument, kind: SealedSignIn.Kind, app: String, expires: Int64) throws -> String {
        let plain: EJSONDocument = ["a": .string(app), "e": .int64(expires), "c": .document(content)]
        let box = try AES.GCM.seal(Array(EJSON.document(plain).encodedString(.relaxed).utf8), using: key, authenticating: Self.context(kind))
        guard let combined = box.combined else { throw StoreError.unavailable("seal a state") }
        return Base64.encode(combined, urlSafe: true)
    }

    /// What a value of `kind` holds and its app, when it opens under this server's key and has
    /// not expired at `now`; nil otherwise. Nothing is written: see ``take(_:kind:now:)``.
    func open(_ value: String, kind: SealedSignIn.Kind, now: Int64) -> (app: String, expires: Int64, content: EJSONDocument)? {
        // Only the spelling this server wrote: another spelling of the same bytes (padding, the
        // other alphabet, a last character's unused bits) would be a second value to spend.
        guard value.utf8.count <= Self.maxLength, let bytes = Base64.decode(value), Base64.encode(bytes, urlSafe: true) == value,
            let box = try? AES.GCM.SealedBox(combined: bytes),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Self.context(kind)),
            case .document(let d)? = try? EJSON(parsing: Array(plain)), let app = d["a"]?.stringValue,
            let expires = d["e"]?.integerValue, let content = d["c"]?.documentValue, expires > now
        else { return nil }
        return (app, expires, content)
    }

    /// ``open(_:kind:now:)``, and the value spent: nil when it was used before.
    func take(_ value: String, kind: SealedSignIn.Kind, now: Int64) async throws -> (app: String, content: EJSONDocument)? {
        guard let (app, expires, content) = open(value, kind: kind, now: now) else { return nil }
        do {
            try await store.insertSignIn(SealedSignIn(id: SealedStates.id(value), appId: app, kind: kind, sealed: [], expiresAt: expires))
        } catch let error as StoreError where error.code == .conflict {
            return nil
        }
        return (app, content)
    }

    private static func context(_ kind: SealedSignIn.Kind) -> [UInt8] { Array("authsh sealed state \(kind.rawValue)".utf8) }

    /// The store's key of a state or code: hex SHA-256.
    static func id(_ secret: String) -> String {
        Hex.encode(Secrets.digest(secret))
    }
}
