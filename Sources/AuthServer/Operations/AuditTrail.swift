// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// What the code answering a request learns for the audit log: the user and app it acted
/// for, a provider, and events of its own (a lockout, a plugin killed). ``AuditMiddleware``
/// gives each audited request one and writes the entries when it answers.
final class AuditTrail: Sendable {
    /// The trail of the request being answered (nil outside one).
    @TaskLocal static var current: AuditTrail?

    struct Extra: Sendable {
        var event: String
        var outcome: String
        var detail: String?
    }

    struct State: Sendable {
        var appId: String?
        var userId: String?
        var provider: String?
        /// Replaces the route's event (a 429 from the back-off is a `lockout`).
        var event: String?
        /// The request failed though its answer does not say so (the web redirect flow
        /// answers a failed sign-in with a redirect): the error code.
        var failure: String?
        var extras: [Extra] = []
    }

    let state = Mutex(State())

    /// The request acted for this user (of this app).
    static func user(_ id: String, app: String) {
        current?.state.withLock {
            $0.userId = id
            $0.appId = app
        }
    }

    static func provider(_ type: String) { current?.state.withLock { $0.provider = type } }

    /// The request acted for this app (before a user is known).
    static func app(_ id: String) { current?.state.withLock { $0.appId = id } }

    /// The request failed with `code`, whatever its status.
    static func failed(_ code: String) { current?.state.withLock { $0.failure = code } }

    /// The request's event is `name` rather than its route's.
    static func event(_ name: String) { current?.state.withLock { $0.event = name } }

    /// An event besides the request's own.
    static func record(_ event: String, app: String, outcome: String, detail: String? = nil) {
        current?.state.withLock {
            if $0.appId == nil { $0.appId = app }
            $0.extras.append(Extra(event: event, outcome: outcome, detail: detail))
        }
    }
}
