// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Firebase's ID tokens: one hour, `iss` `https://securetoken.google.com/PROJECT`, `aud` the
/// project, `sub` and `user_id` the user, `firebase.identities` and
/// `firebase.sign_in_provider`, the user's custom claims (its custom data) and the app's
/// `accessTokenClaims` at the top level, and `sid`, the
/// authsh session the token belongs to (its logout or revocation ends the token). In dev mode
/// they are unsigned (`alg: none`), as the Auth emulator's are, so that the Admin SDKs'
/// emulator mode reads them; otherwise signed with the app's key (HS256, or ES256 published at
/// the app's JWKS URL). A dev server takes unsigned tokens back; any other refuses them.
struct FirebaseIDTokens: Sendable {
    let tokens: TokenIssuer
    let clock: ServerClock
    /// Dev mode: unsigned tokens, as the emulator's.
    let dev: Bool

    /// An ID token's lifetime: one hour, as Firebase's.
    static let lifetime: Int64 = 3600
    static let issuerPrefix = "https://securetoken.google.com/"
    /// The claims custom claims may not name (Firebase's list).
    static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti", "nbf",
        "nonce", "sub",
    ]

    /// What a token says once checked.
    struct Verified: Sendable {
        let userId: String
        let sessionId: String
        let claims: EJSONDocument
        /// How the session's login proved the person (its row's, never the token's say).
        var methods: [String] = []
    }

    /// A new ID token of `user` in `session`, which logged in at `authTime` with
    /// `providerType` (authsh's), proving the person by `methods` (``AuthenticationMethods``).
    func make(
        project: FirebaseProjects.Project, user: UserRecord, session: String, providerType: String, authTime: Int64,
        methods: [String], sessionClaims: EJSONDocument? = nil, extra: EJSONDocument
    ) async throws -> String {
        let now = clock.now
        var claims: EJSONDocument = [
            "iss": .string(Self.issuerPrefix + project.id), "aud": .string(project.id), "auth_time": .int64(authTime),
            "user_id": .string(user.id), "sub": .string(user.id), "iat": .int64(now), "exp": .int64(now + Self.lifetime),
            "sid": .string(session),
        ]
        if let (email, verified) = FirebaseIdentities.email(of: user) {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(verified)
        }
        if let number = FirebaseIdentities.phoneNumber(of: user) { claims["phone_number"] = .string(number) }
        if let name = user.data["name"]?.stringValue { claims["name"] = .string(name) }
        if let picture = user.data["picture_url"]?.stringValue { claims["picture"] = .string(picture) }
        let provider = FirebaseIdentities.providerId(providerType)
        if provider == "anonymous" { claims["provider_id"] = "anonymous" }
        var firebase: EJSONDocument = [
            "identities": .document(FirebaseIdentities.tokenIdentities(of: user)), "sign_in_provider": .string(provider),
        ]
        // The second factor's method is the one before `mfa` (AuthenticationMethods.withSecondFactor).
        if let last = methods.lastIndex(of: AuthenticationMethods.multipleFactors), last > 0 {
            if methods[last - 1] == AuthenticationMethods.textMessage {
                firebase["sign_in_second_factor"] = "phone"
            } else {
                firebase["sign_in_second_factor"] = "totp"
                firebase["second_factor_identifier"] = .string(FirebaseSecondFactors.totpEnrollmentId)
            }
        }
        claims["firebase"] = .document(firebase)
        // The session's claims (its custom token's), the user's custom claims (its custom data),
        // then the hook's; none replaces a claim of Firebase's, nor one before it.
        for (key, value) in sessionClaims ?? [:] where claims[key] == nil && !Self.reservedClaims.contains(key) {
            claims[key] = value
        }
        for (key, value) in user.customData ?? [:] where claims[key] == nil && !Self.reservedClaims.contains(key) {
            claims[key] = value
        }
        for (key, value) in extra where claims[key] == nil { claims[key] = value }
        if dev { return Self.unsigned(claims) }
        return try await tokens.sign(document: claims, app: project.app.id)
    }

    /// The issuer of a project's session cookies, before the project id.
    static let sessionCookieIssuerPrefix = "https://session.firebase.google.com/"
    /// The shortest and longest a session cookie may last (Firebase's: 5 minutes, 14 days).
    static let sessionCookieLifetimes: ClosedRange<Int64> = 300...(14 * 86_400)

    /// A session cookie of a checked ID token (the Admin API's `createSessionCookie`): its
    /// claims, issued now by `https://session.firebase.google.com/PROJECT` for `lifetime`
    /// seconds, signed as ID tokens are (unsigned in dev mode). Its `sid` is the ID token's
    /// session, whose end (a logout, a revocation) the Admin SDKs' `check_revoked` sees
    /// through the user's `validSince`.
    func sessionCookie(of token: Verified, project: FirebaseProjects.Project, lifetime: Int64) async throws -> String {
        var claims = token.claims
        let now = clock.now
        claims["iat"] = .int64(now)
        claims["exp"] = .int64(now + lifetime)
        claims["iss"] = .string(Self.sessionCookieIssuerPrefix + project.id)
        if dev { return Self.unsigned(claims) }
        return try await tokens.sign(document: claims, app: project.app.id)
    }

    /// An unsigned JWT (`alg: none`, an empty signature), as the emulator makes them.
    static func unsigned(_ claims: EJSONDocument) -> String {
        var token: [UInt8] = []
        Base64.encode(EJSON.document(["alg": "none", "typ": "JWT"]).encoded(.relaxed), urlSafe: true, appendingTo: &token)
        token.append(UInt8(ascii: "."))
        Base64.encode(EJSON.document(claims).encoded(.relaxed), urlSafe: true, appendingTo: &token)
        token.append(UInt8(ascii: "."))
        return String(decoding: token, as: UTF8.self)
    }

    /// The claims of an ID token of `project`, checked: its signature (or, in dev mode only,
    /// none), issuer, audience, subject, session and expiry. `INVALID_ID_TOKEN` or
    /// `TOKEN_EXPIRED` otherwise.
    func verify(_ token: String, project: FirebaseProjects.Project) async throws(FirebaseError) -> Verified {
        let invalid = FirebaseError.invalid("INVALID_ID_TOKEN")
        guard let parts = JWTParts(token) else { throw invalid }
        let claims: EJSONDocument
        if parts.header["alg"]?.stringValue == "none" {
            // The emulator's convenience: never outside dev mode.
            guard dev, parts.isUnsigned else { throw invalid }
            claims = parts.claims
        } else {
            guard let payload = await tokens.verifiedPayload(token, app: project.app.id) else { throw invalid }
            claims = payload
        }
        guard claims["iss"]?.stringValue == Self.issuerPrefix + project.id, claims["aud"]?.stringValue == project.id,
            claims["typ"] == nil, let sub = claims["sub"]?.stringValue, !sub.isEmpty, sub.utf8.count <= 128,
            let session = claims["sid"]?.stringValue, let exp = claims["exp"]?.integerValue
        else { throw invalid }
        guard exp > clock.now else { throw FirebaseError.invalid("TOKEN_EXPIRED") }
        return Verified(userId: sub, sessionId: session, claims: claims)
    }
}
