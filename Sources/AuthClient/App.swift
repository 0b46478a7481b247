import AuthProtocol
import Synchronization

/// An App Services app on one server: its users and the requests made for them.
///
/// Users, their tokens and the current user live in memory for now; persisting them under the
/// storage directory is the next step (see the README).
public final class App: Sendable {
    /// Where the server is and how long a request may take.
    public struct Configuration: Sendable {
        /// The server's origin, for instance `http://127.0.0.1:9090`.
        public var baseURL: String
        public var requestTimeout: Duration
        public init(baseURL: String, requestTimeout: Duration = .seconds(60)) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.requestTimeout = requestTimeout
        }
    }

    public let id: String
    public let configuration: Configuration
    let transport: any AuthTransport
    let users = Mutex(UserTable())
    /// The origin `location` named, once asked.
    let hostname = Mutex<String?>(nil)
    /// Refreshes in flight, per user: concurrent requests that hit an expired token share one.
    let refreshes = Mutex<[String: Task<String, any Error>]>([:])

    public init(id: String, configuration: Configuration, transport: (any AuthTransport)? = nil) {
        self.id = id
        self.configuration = configuration
        self.transport = transport ?? AsyncHTTPTransport()
    }

    /// The current user: the last one logged in or switched to, if still logged in; else the
    /// first logged-in user; else nil. No request.
    public var currentUser: User? { users.withLock { $0.current }.map { User(id: $0.id, app: self) } }

    /// Every user not removed, logged-out ones included, by id.
    public var allUsers: [String: User] {
        Dictionary(uniqueKeysWithValues: users.withLock { table in
            table.order.compactMap { table.records[$0] }.filter { $0.state != .removed }.map { ($0.id, User(id: $0.id, app: self)) }
        })
    }

    /// Email/password registration, confirmation and reset.
    public var emailPasswordAuth: EmailPasswordAuth { EmailPasswordAuth(app: self) }

    /// Logs in; the user becomes current. Anonymous credentials with `reuse` return the
    /// logged-in anonymous user, if there is one, without a request. The profile is fetched
    /// as part of the login: if that fails, the login fails.
    @discardableResult
    public func login(credentials: Credentials) async throws(AuthClientError) -> User {
        if credentials.reuse, let existing = users.withLock({ t in t.order.compactMap { t.records[$0] }.first { $0.state == .loggedIn && $0.isAnonymous } }) {
            users.withLock { $0.currentId = existing.id }
            return User(id: existing.id, app: self)
        }
        var body = credentials.body
        if let device = users.withLock({ $0.current?.deviceId }), device != ObjectId.zero.hex {
            body["options"] = ["device": ["deviceId": .string(device)]]
        }
        let reply = try await request("POST", Routes.login(id, provider: credentials.provider), body: .document(body), auth: .none)
        guard let access = reply["access_token"]?.stringValue, let refresh = reply["refresh_token"]?.stringValue,
            let userId = reply["user_id"]?.stringValue
        else { throw malformed("the login answer has no tokens") }
        let profile = try await fetchProfile(accessToken: access)
        let record = UserRecord(id: userId, state: .loggedIn, accessToken: access, refreshToken: refresh,
                                deviceId: reply["device_id"]?.stringValue ?? ObjectId.zero.hex,
                                profile: profile.profile, identities: profile.identities)
        users.withLock {
            $0[userId] = record
            $0.currentId = userId
        }
        return User(id: userId, app: self)
    }

    /// Makes `user` current. It must be known here and logged in. No request.
    public func switchUser(to user: User) throws(AuthClientError) {
        try users.withLock { table throws(AuthClientError) in
            guard let record = table[user.id], record.state != .removed else {
                throw AuthClientError(code: AuthClientError.userNotFound, message: "User does not exist")
            }
            guard record.state == .loggedIn else {
                throw AuthClientError(code: AuthClientError.userNotLoggedIn, message: "The specified user is not logged in.")
            }
            table.currentId = user.id
        }
    }

    /// GET profile with an access token: `data` and identities.
    func fetchProfile(accessToken: String) async throws(AuthClientError) -> (profile: UserProfile, identities: [UserIdentity]) {
        let reply = try await request("GET", Routes.profile, body: nil, auth: .token(accessToken))
        guard case .document(let data)? = reply["data"], case .array(let ids)? = reply["identities"] else {
            throw malformed("the profile has no data or identities")
        }
        let identities = ids.compactMap { i -> UserIdentity? in
            guard let id = i["id"]?.stringValue, let type = i["provider_type"]?.stringValue else { return nil }
            return UserIdentity(id: id, providerType: type)
        }
        return (UserProfile(data: data), identities)
    }

    func malformed(_ what: String) -> AuthClientError {
        AuthClientError(code: AuthClientError.malformedResponse, message: "\(configuration.baseURL): \(what)")
    }
}
