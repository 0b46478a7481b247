// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Who made a request with an access token, checked once before any service runs: the token's
/// signature, kind, expiry and app, its session still live and its user enabled (one indexed
/// read, ``SessionService/caller(accessToken:in:)``). Services take it with their typed input
/// and read the user's record only when they need it (``SessionService/user(of:)``); whether
/// the caller may do what they ask (a recent login, one that used the second factor) is the
/// service's rule, not the transport's.
struct Caller: Sendable {
    /// The app the token was issued for.
    let app: AppRuntime
    /// The token's claims.
    let claims: IssuedTokenClaims

    /// The user the token names.
    var userId: String { claims.sub }
    /// The token's session.
    var sessionId: String { claims.session ?? "" }
    /// When the session's login happened (`auth_time`), if the token says.
    var authTime: Int64? { claims.auth_time }
    /// How that login proved the person (`amr`, ``AuthenticationMethods``).
    var methods: [String] { claims.amr ?? [] }
    /// The device the session was opened on.
    var deviceId: String { claims.baas_device_id ?? ObjectId.zero.hex }
}

/// Who made a request with a refresh token (App Services names a user's API keys by one):
/// the token's live session and its enabled user.
struct SessionCaller: Sendable {
    let app: AppRuntime
    let session: SessionRecord
    /// The user, with its identities (an anonymous user makes no API key).
    let user: UserRecord
    let claims: IssuedTokenClaims
}
