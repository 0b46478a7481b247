// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc
import Synchronization

/// An App Services app on one server: its users and the requests made for them.
///
/// With a storage directory, users, their tokens and the current user are kept there (see
/// ``UserStore``), so a new process sees the same users with no request; without one they live
/// in memory.
public final class App: Sendable {
    /// Where the server is, how long a request may take, where users are kept.
    public struct Configuration: Sendable {
        /// The server's origin, for instance `http://127.0.0.1:9090`.
        public var baseURL: String
        public var requestTimeout: Duration
        /// Where the user store lives; nil keeps users in memory only.
        public var storageDirectory: String?
        /// The Firebase project the app speaks Firebase Auth's API to; nil: App Services' API.
        public var firebase: FirebaseProject?
        public init(
            baseURL: String, requestTimeout: Duration = .seconds(60), storageDirectory: String? = nil, firebase: FirebaseProject? = nil
        ) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.requestTimeout = requestTimeout
            self.storageDirectory = storageDirectory
            self.firebase = firebase
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
    /// Firebase TOTP enrolments under way, per user: the `sessionInfo` their confirmation sends
    /// (in memory: an enrolment is confirmed by the process that started it).
    let firebaseEnrolments = Mutex<[String: String]>([:])
    /// The `sessionInfo` of the code texted for a login waiting for its second factor, per
    /// `mfaToken` (``sendPhoneCode(_:enrollmentId:)``, Firebase's API).
    let firebasePhoneSignIns = Mutex<[String: String]>([:])

    let store: UserStore?
    /// Store files that could not be read when the app opened its store: each was set aside
    /// (renamed `*.corrupt-<time>`), and this says where. Empty when all was well.
    public let storeProblems: [String]

    /// An app, with the users its store holds.
    /// - Throws: `ClientStoreFailed` when the storage directory cannot be created.
    public init(id: String, configuration: Configuration, transport: (any AuthTransport)? = nil) throws(AuthClientError) {
        self.id = id
        self.configuration = configuration
        self.transport = transport ?? AsyncHTTPTransport()
        if let directory = configuration.storageDirectory {
            let store = try UserStore(storage: directory, server: configuration.baseURL, app: id)
            let (table, problems) = store.load()
            self.store = store
            storeProblems = problems
            users.withLock { $0 = table }
        } else {
            store = nil
            storeProblems = []
        }
    }

    /// An app of a Firebase project, which speaks Firebase Auth's REST API (``FirebaseProject``);
    /// its id is the project's.
    public convenience init(
        firebase project: FirebaseProject, requestTimeout: Duration = .seconds(60), storageDirectory: String? = nil,
        transport: (any AuthTransport)? = nil
    ) throws(AuthClientError) {
        try self.init(
            id: project.projectId,
            configuration: Configuration(
                baseURL: project.origin, requestTimeout: requestTimeout, storageDirectory: storageDirectory, firebase: project),
            transport: transport)
    }

    /// Changes one user's record (nil removes it), in the store first when there is one.
    @discardableResult
    func change(_ id: String, _ body: (inout UserRecord?) -> Void) throws(AuthClientError) -> UserRecord? {
        if let store {
            let fresh = try store.update(id, body)
            users.withLock { $0[id] = fresh }
            return fresh
        }
        return users.withLock { table in
            var record = table[id]
            body(&record)
            table[id] = record
            return record
        }
    }

    /// Names the current user, in the store first when there is one.
    func setCurrent(_ id: String?) throws(AuthClientError) {
        try store?.setCurrent(id)
        users.withLock { $0.currentId = id }
    }

    /// The current user: the last one logged in or switched to, if still logged in; else the
    /// first logged-in user; else nil. No request.
    public var currentUser: User? { users.withLock { $0.current }.map { User(id: $0.id, app: self) } }

    /// Every user not removed, logged-out ones included, by id.
    public var allUsers: [String: User] { Dictionary(uniqueKeysWithValues: usersInOrder.map { ($0.id, $0) }) }

    /// Every user not removed, logged-out ones included, in the order they first logged in here.
    public var usersInOrder: [User] {
        users.withLock { table in
            table.inOrder.map { User(id: $0.id, app: self) }
        }
    }

    /// Email/password registration, confirmation and reset.
    public var emailPasswordAuth: EmailPasswordAuth { EmailPasswordAuth(app: self) }

    /// Logs in; the user becomes current. Anonymous credentials with `reuse` return the
    /// logged-in anonymous user, if there is one, without a request. The profile is fetched
    /// as part of the login: if that fails, the login fails.
    @discardableResult
    public func login(credentials: Credentials) async throws(AuthClientError) -> User {
        if credentials.reuse, let existing = users.withLock({ $0.inOrder.first { $0.state == .loggedIn && $0.isAnonymous } }) {
            try setCurrent(existing.id)
            return User(id: existing.id, app: self)
        }
        let device = users.withLock { $0.current?.deviceId }
        let reply = try await loginReply(credentials, deviceId: device)
        try change(reply.userId) { record in
            if record == nil { record = UserRecord(id: reply.userId, state: .loggedIn, deviceId: ObjectId.zero.hex, seq: Self.now()) }
            reply.apply(to: &record!)
        }
        try setCurrent(reply.userId)
        return User(id: reply.userId, app: self)
    }

    /// What a login answered, with the profile fetched with its access token.
    struct LoginReply {
        var userId: String
        var access: String
        var refresh: String
        var deviceId: String
        var profile: UserProfile
        var identities: [UserIdentity]
        var providerTokens: ProviderTokens?

        /// Logs `record` in with these tokens and this profile.
        func apply(to record: inout UserRecord) {
            record.state = .loggedIn
            record.accessToken = access
            record.refreshToken = refresh
            record.deviceId = deviceId
            record.profile = profile
            record.identities = identities
            if let providerTokens { record.providerTokens = providerTokens }
        }
    }

    /// A login over the app's protocol (``loginRequest(_:deviceId:)``, or Firebase's sign-in);
    /// changes nothing here.
    func loginReply(_ credentials: Credentials, deviceId device: String?) async throws(AuthClientError) -> LoginReply {
        if let firebase { return try await firebaseLogin(firebase, credentials) }
        if credentials.provider == Credentials.emailLinkProvider { throw onlyFirebase("an email sign-in link") }
        return try await loginRequest(credentials, deviceId: device)
    }

    /// Sends a login (with `deviceId` when it is a real one) and reads the profile from its
    /// answer, or fetches it when the server gave none; changes nothing here.
    func loginRequest(_ credentials: Credentials, deviceId device: String?) async throws(AuthClientError) -> LoginReply {
        var body = credentials.body
        if let authenticator = credentials.authenticator {
            let options = try await request("POST", Routes.passkeyOptions(id), body: nil, auth: .none)
            guard let publicKey = options["publicKey"] else { throw malformed("the passkey options have no publicKey") }
            body["credential"] = try SoftwareAuthenticator.answer { try authenticator.get(publicKey) }
        }
        if let device, device != ObjectId.zero.hex {
            body["options"] = ["device": ["deviceId": .string(device)]]
        }
        let reply = try await request("POST", Routes.login(id, provider: credentials.provider), body: .document(body), auth: .none)
        guard let access = reply["access_token"]?.stringValue, let refresh = reply["refresh_token"]?.stringValue,
            let userId = reply["user_id"]?.stringValue
        else { throw malformed("the login answer has no tokens") }
        guard userId.utf8.allSatisfy({ Hex.value($0) != nil }), !userId.isEmpty else { throw malformed("the user id is not hexadecimal") }
        // authsh's login answer carries the profile; another server's is fetched.
        let profile: (profile: UserProfile, identities: [UserIdentity])
        if let given = reply["profile"], given["user_id"]?.stringValue == userId {
            profile = try self.profile(from: given)
        } else {
            profile = try await fetchProfile(auth: .token(access))
        }
        let providerAccess = reply["provider_access_token"]?.stringValue, providerId = reply["provider_id_token"]?.stringValue
        return LoginReply(
            userId: userId, access: access, refresh: refresh,
            deviceId: reply["device_id"]?.stringValue ?? ObjectId.zero.hex,
            profile: profile.profile, identities: profile.identities,
            providerTokens: providerAccess != nil || providerId != nil
                ? ProviderTokens(accessToken: providerAccess, idToken: providerId) : nil)
    }

    /// Now, in nanoseconds since 1970 (the order users were first seen in).
    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The providers the holder of `email` signs in with (Firebase's `fetchSignInMethods`);
    /// empty when nobody holds it. `EnumerationProtected` when the app hides it.
    public func signInMethods(email: String) async throws(AuthClientError) -> [String] {
        if let firebase {
            let reply = try await firebaseCall(
                firebase, "accounts:createAuthUri", ["identifier": .string(email), "continueUri": "http://localhost"])
            return (reply["signinMethods"]?.arrayValue ?? []).compactMap(\.stringValue).map {
                $0 == "emailLink" ? ProviderType.userpass : Self.providerType(firebase: $0)
            }
        }
        let query = FormEncoding.encode([("email", email)])
        let reply = try await request("GET", Routes.signInMethods(id) + "?" + query, body: nil, auth: .none)
        guard let providers = reply["providers"]?.arrayValue else { throw malformed("the sign-in methods answer has no providers") }
        return providers.compactMap(\.stringValue)
    }

    /// Makes `user` current. It must be known here and logged in. No request.
    public func switchUser(to user: User) throws(AuthClientError) {
        guard let record = users.withLock({ $0[user.id] }) else {
            throw AuthClientError(code: AuthClientError.userNotFound, message: "User does not exist")
        }
        guard record.state == .loggedIn else {
            throw AuthClientError(code: AuthClientError.userNotLoggedIn, message: "The specified user is not logged in.")
        }
        try setCurrent(user.id)
    }

    /// GET profile: `data` and identities.
    func fetchProfile(auth: Auth) async throws(AuthClientError) -> (profile: UserProfile, identities: [UserIdentity]) {
        try profile(from: try await request("GET", Routes.profile, body: nil, auth: auth))
    }

    func malformed(_ what: String) -> AuthClientError {
        AuthClientError(code: AuthClientError.malformedResponse, message: "\(configuration.baseURL): \(what)")
    }
}
