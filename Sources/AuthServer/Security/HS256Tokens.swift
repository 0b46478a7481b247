// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto

/// Signs and verifies the server's own HS256 tokens synchronously, on the caller's thread.
///
/// jwt-kit's key collection is an actor and codes claims with Foundation's JSON coders; on
/// the hot routes (every request with a token, every refresh) the actor hop and the coders
/// were most of the cost. This path does the same work (the key named by `kid`, HMAC-SHA256
/// over `header.payload`, compared in constant time) with the EJSON writer and parser. Tokens
/// it does not handle (another algorithm, an unknown `kid`) go to jwt-kit.
struct HS256Tokens: Sendable {
    /// An app's HMAC key and the first part of its tokens.
    struct Key {
        let secret: SymmetricKey
        /// `base64url(header)`: the header is the same for every token of the app.
        let header: [UInt8]
    }

    /// Keys by app id (the `kid`).
    let keys: [String: Key]

    init(keys: [String: SymmetricKey]) {
        self.keys = keys.reduce(into: [:]) { keys, entry in
            let header: EJSON = ["alg": "HS256", "kid": .string(entry.key), "typ": "JWT"]
            var segment: [UInt8] = []
            Base64.encode(header.encoded(.relaxed), urlSafe: true, appendingTo: &segment)
            keys[entry.key] = Key(secret: entry.value, header: segment)
        }
    }

    /// Why a token was not handled here.
    enum Outcome {
        case verified(IssuedTokenClaims)
        /// Not an HS256 token of a known app: let jwt-kit decide.
        case notHandled
        /// Handled and refused (bad signature, malformed claims).
        case refused
    }

    /// A signed token of app `kid` with `claims` as its payload (relaxed EJSON: integers are
    /// plain JSON integers); nil when the app has no HS256 key.
    func sign(_ claims: EJSONDocument, kid: String) -> String? {
        guard let key = keys[kid] else { return nil }
        var token = key.header
        token.append(UInt8(ascii: "."))
        Base64.encode(EJSON.document(claims).encoded(.relaxed), urlSafe: true, appendingTo: &token)
        let mac = HMAC<SHA256>.authenticationCode(for: token, using: key.secret)
        token.append(UInt8(ascii: "."))
        Base64.encode(Array(mac), urlSafe: true, appendingTo: &token)
        return String(decoding: token, as: UTF8.self)
    }

    /// The key of an HS256 header naming one of our apps. Our own tokens' headers are found by
    /// comparing bytes; any other is decoded and read.
    private func key(header segment: ArraySlice<UInt8>) -> SymmetricKey? {
        if let ours = keys.values.first(where: { $0.header.elementsEqual(segment) }) { return ours.secret }
        guard let bytes = Base64.decode(segment), case .document(let header)? = try? EJSON(parsing: bytes, maxDepth: 4),
            header["alg"]?.stringValue == "HS256", let kid = header["kid"]?.stringValue
        else { return nil }
        return keys[kid]?.secret
    }

    /// The payload of an HS256 token of app `kid`, whatever its claims; nil when it is not one
    /// (another algorithm, another app, a bad signature, a payload that is no JSON object).
    func payload(_ token: String, kid: String) -> EJSONDocument? {
        let utf8 = Array(token.utf8)
        guard let key = keys[kid], let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = utf8[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            utf8[(secondDot + 1)...].firstIndex(of: UInt8(ascii: ".")) == nil,
            let headerBytes = Base64.decode(utf8[..<firstDot]),
            case .document(let header)? = try? EJSON(parsing: headerBytes, maxDepth: 4),
            header["alg"]?.stringValue == "HS256", header["kid"]?.stringValue == kid,
            let signature = Base64.decode(utf8[(secondDot + 1)...]),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: utf8[..<secondDot], using: key.secret),
            let payloadBytes = Base64.decode(utf8[(firstDot + 1)..<secondDot]),
            case .document(let payload)? = try? EJSON(parsing: payloadBytes, maxDepth: 32)
        else { return nil }
        return payload
    }

    func verify(_ token: String) -> Outcome {
        let utf8 = Array(token.utf8)
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = utf8[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            utf8[(secondDot + 1)...].firstIndex(of: UInt8(ascii: ".")) == nil,
            let key = key(header: utf8[..<firstDot])
        else { return .notHandled }
        guard let signature = Base64.decode(utf8[(secondDot + 1)...]),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: utf8[..<secondDot], using: key),
            let payloadBytes = Base64.decode(utf8[(firstDot + 1)..<secondDot]),
            case .document(let p)? = try? EJSON(parsing: payloadBytes, maxDepth: 32),
            let exp = p["exp"]?.exactInteger, let iat = p["iat"]?.exactInteger,
            let sub = p["sub"]?.stringValue, let typ = p["typ"]?.stringValue
        else { return .refused }
        var userData: EJSONDocument?
        if let data = p["user_data"], data != .null {
            guard case .document(let d) = data else { return .refused }
            userData = d
        }
        return .verified(
            IssuedTokenClaims(
                exp: exp, iat: iat, sub: sub, typ: typ, iss: p["iss"]?.stringValue, baas_id: p["baas_id"]?.stringValue,
                baas_device_id: p["baas_device_id"]?.stringValue, baas_domain_id: p["baas_domain_id"]?.stringValue,
                user_data: userData, auth_time: p["auth_time"]?.exactInteger,
                amr: p["amr"]?.arrayValue?.compactMap(\.stringValue)))
    }
}

extension EJSON {
    /// An integer value (int32 or int64 only: a float `exp` is refused, as realm-core does).
    fileprivate var exactInteger: Int64? {
        switch self {
        case .int32(let v): Int64(v)
        case .int64(let v): v
        default: nil
        }
    }
}
