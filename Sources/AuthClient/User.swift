// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user of an app, as this client knows it. Two `User` values with one id are the same user;
/// what they report (state, tokens, profile) is read from the app each time.
public struct User: Sendable, Hashable, CustomStringConvertible {
    /// realm-core's user states.
    public enum State: String, Sendable, Equatable {
        case loggedIn, loggedOut, removed
    }

    public let id: String
    let app: App

    init(id: String, app: App) {
        self.id = id
        self.app = app
    }

    public static func == (a: User, b: User) -> Bool { a.id == b.id && a.app === b.app }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    private var record: UserRecord? { app.users.withLock { $0[id] } }

    /// LoggedIn, LoggedOut, or Removed (also for a user this app no longer knows).
    public var state: State { record?.state ?? .removed }
    public var isAnonymous: Bool { record?.isAnonymous ?? false }
    /// Identities in link order.
    public var identities: [UserIdentity] { record?.identities ?? [] }
    public var profile: UserProfile { record?.profile ?? UserProfile() }
    public var accessToken: String? { record?.accessToken }
    public var refreshToken: String? { record?.refreshToken }
    public var deviceId: String { record?.deviceId ?? ObjectId.zero.hex }
    /// The identity provider's tokens from the last sign-in with a provider that returns them
    /// (`returnProviderTokens`), or nil.
    public var providerTokens: ProviderTokens? { record?.providerTokens }

    /// The access token's `user_data` claim (custom user data), or nil.
    public var customData: EJSONDocument? {
        guard case .document(let data)? = accessTokenClaims?["user_data"] else { return nil }
        return data
    }

    /// The access token's claims as the server wrote them (read, not verified: the client holds
    /// no key), or nil without a token. An app's `accessTokenClaims` hook adds its own here.
    public var accessTokenClaims: EJSONDocument? {
        guard let token = accessToken else { return nil }
        // An unsigned token (a Firebase emulator's: `alg: none`) has an empty third part.
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64.decode(String(parts[1])), case .document(let claims)? = try? EJSON(parsing: bytes)
        else { return nil }
        return claims
    }

    public var description: String {
        let kind = isAnonymous ? "anonymous" : (profile.email ?? identities.first?.providerType ?? "user")
        return "User(\(id), \(kind), \(state.rawValue))"
    }

    /// Logs out: tokens are cleared locally first (an anonymous user becomes Removed, others
    /// LoggedOut), then the session is revoked on the server; a server error does not undo the
    /// local logout. Logging out a user that is not logged in does nothing.
    public func logOut() async throws(AuthClientError) {
        guard let record, record.state == .loggedIn, let refresh = record.refreshToken else { return }
        try app.logOutLocally(id)
        // Firebase's clients sign out locally: its API revokes no session for them.
        guard app.firebase == nil else { return }
        _ = try? await app.request("DELETE", Routes.session, body: nil, auth: .token(refresh))
    }

    /// Forgets the user here (logging it out first if it is logged in). A removed user: error.
    public func remove() async throws(AuthClientError) {
        guard let record else {
            throw AuthClientError(code: AuthClientError.userNotFound, message: "User has already been removed")
        }
        if record.state == .loggedIn { try await logOut() }
        try app.change(id) { $0 = nil }
    }

    /// Deletes the user on the server; then it is Removed here. It must be logged in; on
    /// failure nothing changes locally.
    public func delete() async throws(AuthClientError) {
        _ = try app.loggedIn(id)
        if let firebase = app.firebase {
            _ = try await app.firebaseCall(firebase, "accounts:delete", [:], as: id)
        } else {
            _ = try await app.request("DELETE", Routes.deleteUser, body: nil, auth: .access(userId: id))
        }
        try app.change(id) { $0 = nil }
    }

    /// Adds the identity of `credentials` to this user. Refused before any request when the
    /// user is not logged in or the credentials are anonymous.
    @discardableResult
    public func linkIdentity(credentials: Credentials) async throws(AuthClientError) -> User {
        _ = try app.loggedIn(id)
        guard credentials.provider != ProviderType.anonymous else {
            throw AuthClientError(code: AuthClientError.userAlreadyNamed, message: "Cannot add anonymous credentials to an existing user.")
        }
        if let firebase = app.firebase { return try await linkFirebase(firebase, credentials) }
        if credentials.provider == Credentials.emailLinkProvider { throw app.onlyFirebase("an email sign-in link") }
        let reply = try await app.request(
            "POST", Routes.login(app.id, provider: credentials.provider) + "?link=true",
            body: .document(credentials.body), auth: .access(userId: id))
        guard let access = reply["access_token"]?.stringValue else { throw app.malformed("the link answer has no access token") }
        let profile = try await app.fetchProfile(auth: .token(access))
        try app.change(id) { record in
            record?.accessToken = access
            record?.profile = profile.profile
            record?.identities = profile.identities
        }
        return self
    }

    /// Adds the identity of `credentials` to this user (Realm Swift's and Firebase's spelling
    /// of ``linkIdentity(credentials:)``).
    @discardableResult
    public func linkIdentity(_ credentials: Credentials) async throws(AuthClientError) -> User {
        try await linkIdentity(credentials: credentials)
    }

    /// Reads the profile and identities from the server again.
    @discardableResult
    public func refreshProfile() async throws(AuthClientError) -> UserProfile {
        let fetched: (profile: UserProfile, identities: [UserIdentity])
        if let firebase = app.firebase {
            fetched = try await app.firebaseProfile(firebase, of: id)
        } else {
            fetched = try await app.fetchProfile(auth: .access(userId: id))
        }
        try app.change(id) { record in
            record?.profile = fetched.profile
            record?.identities = fetched.identities
        }
        return fetched.profile
    }

    /// A new access token, so `customData` shows what the server holds now.
    public func refreshCustomData() async throws(AuthClientError) -> EJSONDocument? {
        _ = try await app.refreshAccessToken(userId: id)
        return customData
    }

    /// Calls a server function with EJSON arguments; returns its EJSON result.
    public func callFunction(name: String, arguments: [EJSON] = []) async throws(AuthClientError) -> EJSON {
        if app.firebase != nil { throw app.onlyAppServices("calling a function") }
        return try await app.request(
            "POST", Routes.functionsCall(app.id), body: ["name": .string(name), "arguments": .array(arguments)],
            auth: .access(userId: id))
    }
}
