// SPDX-License-Identifier: Apache-2.0
/// Which users a listing returns (``AuthStore/listUsers(app:query:)``), oldest id first.
public struct UserQuery: Sendable, Equatable {
    /// This id only.
    public var id: String?
    /// A prefix of one of the user's emails (identities' verified emails, an email/password
    /// account's), lowercased.
    public var emailPrefix: String?
    /// A provider type the user has an identity of.
    public var provider: String?
    /// true: only disabled users; false: only enabled ones.
    public var disabled: Bool?
    public var createdAfter: Int64?
    public var createdBefore: Int64?
    public var lastLoginAfter: Int64?
    public var lastLoginBefore: Int64?
    /// Users whose id sorts after this one (the cursor: the last id of the previous page).
    public var after: String?
    public var limit = 50

    public init() {}
}
