// SPDX-License-Identifier: Apache-2.0
/// Which audit events to read (``AuthStore/auditEvents(_:)``); nil fields match anything.
public struct AuditFilter: Sendable, Equatable {
    public var appId: String?
    public var userId: String?
    public var event: String?
    /// From this time on (Unix seconds).
    public var since: Int64?
    /// Events with an id below this (the page after one ending there).
    public var before: Int64?
    /// Events with an id above this, oldest first (what came after the last one read: a
    /// follower's next read). Without it, the newest come first.
    public var after: Int64?
    public var limit = 100

    public init(
        appId: String? = nil, userId: String? = nil, event: String? = nil, since: Int64? = nil, before: Int64? = nil,
        after: Int64? = nil, limit: Int = 100
    ) {
        self.appId = appId
        self.userId = userId
        self.event = event
        self.since = since
        self.before = before
        self.after = after
        self.limit = limit
    }
}
