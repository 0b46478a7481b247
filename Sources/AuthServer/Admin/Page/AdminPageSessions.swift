// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// The admin page's sign-ins: a random session id in an HttpOnly, SameSite=Strict cookie, and
/// for each a CSRF token that every form carries. Kept in this process's memory (only the
/// ids' digests): a restart, or another instance behind the same balancer, asks to sign in
/// again. A session ends after 30 minutes unused or 8 hours in all, or at sign-out.
final class AdminPageSessions: Sendable {
    struct Session: Sendable {
        var keyName: String
        var csrf: String
        var started: Int64
        var lastUsed: Int64
    }

    static let idle: Int64 = 30 * 60
    static let lifetime: Int64 = 8 * 3600
    /// Sessions kept at most (the oldest go first): sign-ins cannot grow memory without end.
    static let capacity = 1000

    private let sessions = Mutex<[String: Session]>([:])

    /// Starts a session for key `keyName` at `now`; returns its cookie value and CSRF token.
    func start(keyName: String, now: Int64) -> (id: String, csrf: String) {
        let id = Secrets.randomHex(bytes: 32), csrf = Secrets.randomHex(bytes: 32)
        sessions.withLock { all in
            all = all.filter { now - $0.value.lastUsed < Self.idle && now - $0.value.started < Self.lifetime }
            if all.count >= Self.capacity, let oldest = all.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
                all[oldest] = nil
            }
            all[Self.key(id)] = Session(keyName: keyName, csrf: csrf, started: now, lastUsed: now)
        }
        return (id, csrf)
    }

    /// The live session of cookie value `id`, marked used at `now`.
    func session(_ id: String, now: Int64) -> Session? {
        sessions.withLock { all in
            let key = Self.key(id)
            guard var s = all[key] else { return nil }
            guard now - s.lastUsed < Self.idle, now - s.started < Self.lifetime else {
                all[key] = nil
                return nil
            }
            s.lastUsed = now
            all[key] = s
            return s
        }
    }

    func end(_ id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: Self.key(id)) }
    }

    private static func key(_ id: String) -> String { Hex.encode(Secrets.digest(id)) }
}
