// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import JWTKit

/// An IdP's signing keys from its JWKS URL: fetched on first use, kept, and fetched again
/// when a token names a key id the set does not hold (the IdP rotated its keys), at most once
/// a minute, so tokens with made-up key ids cannot make the server hammer the IdP. A fetch
/// that failed is not tried again for ``failureMemory``.
actor JWKSKeySet {
    let url: String
    private let http: IdentityProviderHTTP
    private var keys: JWTKeyCollection?
    private var kids: Set<String> = []
    private var count = 0
    private var fetchedAt: ContinuousClock.Instant?
    /// How often an unknown key id may cause a fetch.
    static let refetchInterval = Duration.seconds(60)
    /// How long a failed fetch is remembered: logins meanwhile get its error without a fetch,
    /// so an IdP that is down is not asked again by every login.
    static let failureMemory = Duration.seconds(10)
    private var failure: (error: ServiceError, at: ContinuousClock.Instant)?

    init(url: String, http: IdentityProviderHTTP) {
        self.url = url
        self.http = http
    }

    /// The keys to verify a token that names `kid` (or none). Nil `kid` is accepted only when
    /// the set holds one key: that key verifies it.
    func keys(for kid: String?) async throws(ServiceError) -> JWTKeyCollection {
        if let keys, known(kid) { return keys }
        if keys != nil, let fetchedAt, fetchedAt.duration(to: .now) < Self.refetchInterval { throw unknown(kid) }
        if let failure, failure.at.duration(to: .now) < Self.failureMemory { throw failure.error }
        do {
            try await fetch()
            failure = nil
        } catch {
            failure = (error, .now)
            throw error
        }
        guard let keys, known(kid) else { throw unknown(kid) }
        return keys
    }

    private func known(_ kid: String?) -> Bool {
        if let kid { return kids.contains(kid) }
        return count == 1
    }

    private func unknown(_ kid: String?) -> ServiceError {
        kid == nil
            ? ServiceError(.authError, "invalid ID token: it names no key id and the issuer has several keys")
            : ServiceError(.authError, "invalid ID token: signed with a key the issuer does not publish")
    }

    private func fetch() async throws(ServiceError) {
        fetchedAt = .now
        let reply = try await http.get(url)
        guard reply.ok, case .array(let list)? = reply.body["keys"] else {
            throw http.unavailable("its JWKS answered \(reply.status) without a key list")
        }
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        var added = 0
        for item in list {
            // Keys this server cannot use (encryption keys, unknown types) are skipped.
            if case .string(let use)? = item["use"], use != "sig" { continue }
            guard let jwk = try? JSONDecoder().decode(JWK.self, from: Data(item.encoded(.relaxed))),
                (try? await collection.add(jwk: jwk.keyIdentifier == nil ? Self.named(jwk) : jwk)) != nil
            else { continue }
            if case .string(let kid)? = item["kid"] { ids.insert(kid) }
            added += 1
        }
        keys = collection
        kids = ids
        count = added
    }

    /// A key without a `kid` (one-key sets do this) under a placeholder id, so the collection
    /// takes it; it is then the default key, used for tokens that name no key.
    private static func named(_ jwk: JWK) -> JWK {
        var copy = jwk
        copy.keyIdentifier = JWKIdentifier(string: "authsh-unnamed")
        return copy
    }
}
