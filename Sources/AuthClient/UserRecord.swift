// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// One identity of a user, in link order.
public struct UserIdentity: Sendable, Equatable {
    public var id: String
    public var providerType: String
    /// The email the provider gave for this identity (its `provider_data.email`), if any.
    public var email: String?
    public init(id: String, providerType: String, email: String? = nil) {
        self.id = id
        self.providerType = providerType
        self.email = email
    }

    /// An identity as the profile lists it (`{"id": .., "provider_type": .., "provider_data": {"email": ..}}`),
    /// or as the store keeps it (`email` at the top).
    init?(_ value: EJSON) {
        guard let id = value["id"]?.stringValue, let type = value["provider_type"]?.stringValue else { return nil }
        self.init(id: id, providerType: type, email: value["email"]?.stringValue ?? value["provider_data"]?["email"]?.stringValue)
    }

    var ejson: EJSON {
        var doc: EJSONDocument = ["id": .string(id), "provider_type": .string(providerType)]
        if let email { doc["email"] = .string(email) }
        return .document(doc)
    }
}

/// A user's profile: the raw `data` document and its well-known string fields.
public struct UserProfile: Sendable, Equatable {
    public var data: EJSONDocument
    public init(data: EJSONDocument = [:]) { self.data = data }
    public var name: String? { data["name"]?.stringValue }
    public var email: String? { data["email"]?.stringValue }
    public var pictureURL: String? { data["picture_url"]?.stringValue }
    public var firstName: String? { data["first_name"]?.stringValue }
    public var lastName: String? { data["last_name"]?.stringValue }
    public var gender: String? { data["gender"]?.stringValue }
    public var birthday: String? { data["birthday"]?.stringValue }
    public var minAge: String? { data["min_age"]?.stringValue }
    public var maxAge: String? { data["max_age"]?.stringValue }
}

/// An identity provider's tokens, as a login answers them when the provider has
/// `returnProviderTokens` (Firebase's `authResult.credential.accessToken`): for calling the
/// provider's own API, GitHub's `/user` for instance.
public struct ProviderTokens: Sendable, Equatable {
    public var accessToken: String?
    public var idToken: String?
    public init(accessToken: String?, idToken: String?) {
        self.accessToken = accessToken
        self.idToken = idToken
    }
}

/// What the client keeps of one user.
struct UserRecord: Sendable, Equatable {
    var id: String
    var state: User.State
    var accessToken: String?
    var refreshToken: String?
    var deviceId: String
    var profile = UserProfile()
    var identities: [UserIdentity] = []
    /// First-seen order (`allUsers` lists users in it): nanoseconds of the first login here.
    var seq: Int64 = 0
    /// The identity provider's tokens from the last sign-in that returned them.
    var providerTokens: ProviderTokens?

    var isAnonymous: Bool { !identities.isEmpty && identities.allSatisfy { $0.providerType == ProviderType.anonymous } }
}

/// Every user the app knows, in the order they were first seen, and the current one.
struct UserTable: Sendable {
    var order: [String] = []
    var records: [String: UserRecord] = [:]
    var currentId: String?

    subscript(id: String) -> UserRecord? {
        get { records[id] }
        set {
            if records[id] == nil, newValue != nil { order.append(id) }
            records[id] = newValue
            if newValue == nil { order.removeAll { $0 == id } }
        }
    }

    /// The records in first-seen order.
    var inOrder: [UserRecord] { order.compactMap { records[$0] } }

    /// realm-core's rule: the last user logged in or switched to if still logged in, else the
    /// first logged-in user, else none.
    var current: UserRecord? {
        if let id = currentId, let r = records[id], r.state == .loggedIn { return r }
        return inOrder.first { $0.state == .loggedIn }
    }
}
