// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import JWTKit

/// The custom tokens `signInWithCustomToken` takes outside dev mode: JWTs a backend signed with
/// a service account's private key (RS256), as the Admin SDKs' `create_custom_token` makes
/// them: `iss` and `sub` the account's email, `aud` the Identity Toolkit's, `uid`, and at most
/// an hour between `iat` and `exp`. The account must be one the app's `firebase.serviceAccounts`
/// lists, and its public key checks the signature.
enum FirebaseCustomTokens {
    /// The longest a custom token may live, as Firebase has it.
    static let maxLifetime: Int64 = 3600
    /// Clock skew allowed for `iat`.
    static let leeway: Int64 = 300

    /// The `uid` of a signed custom token of one of `accounts`, and its `claims`, checked;
    /// why not otherwise.
    static func verified(
        _ token: String, accounts: [FirebaseConfiguration.ServiceAccount], now: Int64
    ) async throws(FirebaseError) -> (uid: String, claims: EJSONDocument?) {
        func refused(_ why: String) -> FirebaseError { FirebaseError.invalid("INVALID_CUSTOM_TOKEN", why) }
        guard let parts = JWTParts(token), parts.header["alg"]?.stringValue == "RS256" else {
            throw refused("a custom token is signed RS256 by a service account")
        }
        let claims = parts.claims
        guard let issuer = claims["iss"]?.stringValue, claims["sub"]?.stringValue == issuer,
            let account = accounts.first(where: { $0.clientEmail == issuer }), let key = FirebaseConfiguration.publicKey(account.publicKey)
        else { throw refused("its issuer is no service account of this project") }
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256)
        do {
            _ = try await keys.verify(token, as: Payload.self)
        } catch {
            throw refused("its signature is not the service account's")
        }
        guard claims["aud"]?.stringValue == FirebaseAccounts.customTokenAudience else {
            throw refused("its audience is not the Identity Toolkit's")
        }
        guard let iat = claims["iat"]?.integerValue, let exp = claims["exp"]?.integerValue, exp > now, iat <= now + leeway,
            exp - iat <= maxLifetime
        else { throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "it expired, or lives longer than an hour") }
        guard let uid = claims["uid"]?.stringValue, FirebaseIdentities.isValidUid(uid) else {
            throw refused("its uid must be 1 to 128 bytes without control characters")
        }
        return (uid, try FirebaseClaims.ofCustomToken(claims["claims"]))
    }

    /// What the signature check reads: nothing (the claims are checked above).
    private struct Payload: JWTPayload {
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
