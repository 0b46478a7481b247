// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Sessions and API keys.
extension SQLStore {
    // MARK: sessions

    public func insertSession(_ session: SessionRecord, events: [TriggerRun]) async throws {
        try await engine.write("create session") { r in try await Self.insertSession(session, events: events, on: r) }
    }

    public func insertUser(
        _ user: UserRecord, events userEvents: [TriggerRun], session: SessionRecord, sessionEvents: [TriggerRun]
    ) async throws {
        try await engine.write("create user") { r in
            try await Self.insertUser(user, events: userEvents, on: r)
            try await Self.insertSession(session, events: sessionEvents, on: r)
        }
    }

    /// The statements of ``insertSession(_:events:)``, in the caller's transaction.
    package static func insertSession(_ session: SessionRecord, events: [TriggerRun], on r: Engine.Runner) async throws {
        for event in events { try await r.run(TriggerRunsTable.insert, TriggerRunsTable.insertArguments(event)) }
        try await r.run(SessionsTable.insert, SessionsTable.insertArguments(session))
        try await r.run(UsersTable.setLastLogin, [.integer(session.createdAt), .text(session.userId)])
    }

    public func sessionWithUser(id: String, identities: Bool) async throws -> (SessionRecord, UserRecord)? {
        // One statement for the session and its user (a refresh's read); the identities only
        // when asked for, and then on the same snapshot.
        guard identities else {
            return try await engine.read("read session") { r in
                try await r.first(SessionsTable.withUser, [.text(id)], SessionsTable.sessionAndUser)
            }
        }
        return try await engine.snapshot("read session") { r in
            guard var found = try await r.first(SessionsTable.withUser, [.text(id)], SessionsTable.sessionAndUser) else { return nil }
            found.1 =
                UsersTable.userWithIdentities(
                    try await r.all(
                        UsersTable.withIdentities, [.text(found.1.id), .text(found.1.appId)],
                        UsersTable.userAndIdentity)) ?? found.1
            return found
        }
    }

    public func sessionState(id: String) async throws -> SessionState? {
        try await engine.read("read session") { r in try await r.first(SessionsTable.state, [.text(id)], SessionsTable.state) }
    }

    public func deleteSession(id: String) async throws {
        try await engine.write("delete session") { r in try await r.run(SessionsTable.delete, [.text(id)]) }
    }

    public func sessions(userId: String, app: String) async throws -> [SessionRecord] {
        try await engine.read("list sessions") { r in
            try await r.all(SessionsTable.ofUser, [.text(userId), .text(app)]) { row in
                var session = try SessionsTable.session(row)
                session.refreshDigest = []  // a list never hands out the digests
                return session
            }
        }
    }

    public func deleteSession(id: String, userId: String, app: String) async throws -> Bool {
        try await engine.write("end session") { r in
            try await r.count(SessionsTable.deleteOfUser, [.text(id), .text(userId), .text(app)]) > 0
        }
    }

    public func deleteSessions(userId: String, app: String, except keep: String) async throws -> Int {
        try await engine.write("end sessions") { r in
            try await r.count(SessionsTable.deleteOthersOfUser, [.text(userId), .text(app), .text(keep)])
        }
    }

    public func revokeTokens(userId: String, app: String, before time: Int64) async throws -> Bool {
        try await engine.write("revoke tokens") { r in
            guard try await r.count(UsersTable.setValidSince, [.integer(time), .text(userId), .text(app)]) == 1 else { return false }
            try await r.run(SessionsTable.deleteOfUserBefore, [.text(userId), .text(app), .integer(time)])
            return true
        }
    }

    public func refreshSession(
        id: String, digest: [UInt8], now: Int64, due: Int64, identities: Bool
    ) async throws -> (SessionRecord, UserRecord)? {
        if let marked = sessionMarks.lastMark(id), marked > due {
            // Marked after `due`: nothing to write, whichever the engine.
            return try await readSession(id, identities: identities)
        }
        let found: (SessionRecord, UserRecord)?
        var marks = false
        if Engine.updatesInReads {
            // Outside a transaction the statement commits alone: one round trip.
            let arguments: [SQLValue] = [.text(id), .integer(now), .blob(digest), .integer(due), .integer(now)]
            found = try await engine.read("read session") { r in
                guard identities else { return try await r.first(SessionsTable.withUserMarkingUse, arguments, SessionsTable.sessionAndUser) }
                return SessionsTable.sessionWithIdentities(
                    try await r.all(SessionsTable.withUserAndIdentitiesMarkingUse, arguments, SessionsTable.sessionUserAndIdentity))
            }
            marks = found.map { Self.marksUse($0.0, $0.1, digest: digest, now: now, due: due) } ?? false
        } else {
            found = try await readSession(id, identities: identities)
            if let (session, user) = found, Self.marksUse(session, user, digest: digest, now: now, due: due) {
                try await engine.write("mark session used") { r in try await r.run(SessionsTable.touch, [.integer(now), .text(id)]) }
                marks = true
            }
        }
        if let (session, _) = found { sessionMarks.record(id, at: marks ? now : session.lastUsed ?? session.createdAt) }
        return found
    }

    /// A refresh's read: the session and its user, with its identities in the same statement
    /// when asked for.
    private func readSession(_ id: String, identities: Bool) async throws -> (SessionRecord, UserRecord)? {
        guard identities else { return try await sessionWithUser(id: id, identities: false) }
        return try await engine.read("read session") { r in
            SessionsTable.sessionWithIdentities(
                try await r.all(SessionsTable.withUserAndIdentities, [.text(id)], SessionsTable.sessionUserAndIdentity))
        }
    }

    /// Whether a refresh marks `session` used (as it was before the refresh): it will be
    /// answered, and its last use is due.
    package static func marksUse(_ session: SessionRecord, _ user: UserRecord, digest: [UInt8], now: Int64, due: Int64) -> Bool {
        session.refresh(digest: digest, now: now, user: user) == .answered && (session.lastUsed ?? session.createdAt) <= due
    }

    // MARK: API keys

    public func insertAPIKey(_ key: APIKeyRecord, limit: Int) async throws -> Bool {
        try await engine.write("create API key") { r in
            // The user's row locked: two creations at once cannot both pass the limit.
            try await r.run(UsersTable.lock, [.text(key.userId)])
            let found = try await r.first(APIKeysTable.countAndNext, [.text(key.userId)]) {
                (count: try $0.int64("count"), next: try $0.int64("next"))
            }
            guard let found, found.count < Int64(limit) else { return false }
            try await r.run(APIKeysTable.insert, APIKeysTable.insertArguments(key, seq: found.next))
            return true
        }
    }

    public func apiKeys(userId: String) async throws -> [APIKeyRecord] {
        try await engine.read("list API keys") { r in try await r.all(APIKeysTable.ofUser, [.text(userId)], APIKeysTable.key) }
    }

    public func apiKey(id: String, userId: String) async throws -> APIKeyRecord? {
        try await engine.read("read API key") { r in try await r.first(APIKeysTable.oneOfUser, [.text(id), .text(userId)], APIKeysTable.key) }
    }

    public func apiKey(app: String, digest: [UInt8]) async throws -> APIKeyRecord? {
        try await engine.read("read API key") { r in try await r.first(APIKeysTable.byDigest, [.blob(digest), .text(app)], APIKeysTable.key) }
    }

    public func deleteAPIKey(id: String, userId: String) async throws -> Bool {
        try await engine.write("delete API key") { r in
            guard try await r.count(APIKeysTable.delete, [.text(id), .text(userId)]) > 0 else { return false }
            try await r.run(SessionsTable.deleteOfAPIKey, [.text(userId), .text(ProviderType.apiKey), .text(id)])
            return true
        }
    }

    public func setAPIKeyDisabled(_ disabled: Bool, id: String, userId: String) async throws -> Bool {
        try await engine.write("change API key") { r in
            guard try await r.count(APIKeysTable.setDisabled, [.bool(disabled), .text(id), .text(userId)]) > 0 else { return false }
            if disabled { try await r.run(SessionsTable.deleteOfAPIKey, [.text(userId), .text(ProviderType.apiKey), .text(id)]) }
            return true
        }
    }
}
