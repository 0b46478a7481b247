// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The one path every request takes: location discovery, the token, the refresh-and-retry
/// rule of docs/protocol/wire-protocol.md section 4, and error bodies.
extension App {
    /// Which token a request carries.
    enum Auth: Sendable {
        case none
        /// This token as is (the profile fetch during a login).
        case token(String)
        /// The user's access token; a 401 refreshes once and retries once.
        case access(userId: String)
        /// The user's refresh token; a 401 logs the user out locally.
        case refresh(userId: String)
    }

    /// Sends a request and returns the parsed body (`{}` for an empty one).
    func request(_ method: String, _ path: String, body: EJSON?, auth: Auth) async throws(AuthClientError) -> EJSON {
        // Every App Services request comes here: one that a Firebase app reaches is an
        // operation its protocol has not (API keys, functions, passkeys, ...).
        if firebase != nil { throw onlyAppServices("\(method) \(path.prefix { $0 != "?" })") }
        switch auth {
        case .none:
            return try await send(method, path, body: body, token: nil)
        case .token(let token):
            return try await send(method, path, body: body, token: token)
        case .access(let userId):
            let token = try loggedIn(userId).accessToken
            do {
                return try await send(method, path, body: body, token: token)
            } catch  where error.status == 401 && error.code != ServiceErrorCode.requiresRecentLogin.rawValue {
                // (A new access token keeps its login time: only a new login helps there.)
                let fresh = try await refreshAccessToken(userId: userId, replacing: token)
                return try await send(method, path, body: body, token: fresh)
            }
        case .refresh(let userId):
            let token = try loggedIn(userId).refreshToken
            do {
                return try await send(method, path, body: body, token: token)
            } catch  where error.status == 401 {
                try? logOutLocally(userId)
                throw error
            }
        }
    }

    /// The record of a logged-in user, or ClientUserNotLoggedIn.
    func loggedIn(_ userId: String) throws(AuthClientError) -> UserRecord {
        guard let record = users.withLock({ $0[userId] }), record.state == .loggedIn else {
            throw AuthClientError(code: AuthClientError.userNotLoggedIn, message: "The specified user is not logged in.")
        }
        return record
    }

    /// A new access token from the refresh token. Concurrent callers share one request, and a
    /// caller whose failed token was already replaced gets the new one without a request.
    /// - Parameter replacing: the token that was refused (nil: refresh in any case).
    func refreshAccessToken(userId: String, replacing old: String? = nil) async throws(AuthClientError) -> String {
        let task = refreshes.withLock { running -> Task<String, any Error>? in
            if let old, let current = users.withLock({ $0[userId]?.accessToken }), current != old { return nil }
            if let task = running[userId] { return task }
            let task = Task<String, any Error> {
                defer { _ = self.refreshes.withLock { $0.removeValue(forKey: userId) } }
                if let firebase = self.firebase { return try await self.firebaseRefresh(firebase, userId: userId) }
                let reply = try await self.request("POST", Routes.session, body: nil, auth: .refresh(userId: userId))
                guard let access = reply["access_token"]?.stringValue else { throw self.malformed("the refresh answer has no access token") }
                try self.change(userId) { $0?.accessToken = access }
                return access
            }
            running[userId] = task
            return task
        }
        guard let task else { return try loggedIn(userId).accessToken ?? "" }
        do {
            return try await task.value
        } catch let error as AuthClientError {
            throw error
        } catch {
            throw AuthClientError(code: AuthClientError.malformedResponse, message: "\(error)")
        }
    }

    /// Clears the user's tokens: an anonymous user is removed (forgotten here), others become
    /// LoggedOut.
    func logOutLocally(_ userId: String) throws(AuthClientError) {
        try change(userId) { record in
            guard var r = record, r.state == .loggedIn else { return }
            if r.isAnonymous {
                record = nil
                return
            }
            r.state = .loggedOut
            r.accessToken = nil
            r.refreshToken = nil
            record = r
        }
    }

    /// The origin that `location` names (asked once), else the configured one.
    func origin() async throws(AuthClientError) -> String {
        if let known = hostname.withLock({ $0 }) { return known }
        let reply = try await exchange("GET", configuration.baseURL + Routes.location(id), body: nil, token: nil)
        guard let host = reply["hostname"]?.stringValue, host.hasPrefix("http") else {
            throw malformed("location has no hostname")
        }
        let origin = host.hasSuffix("/") ? String(host.dropLast()) : host
        hostname.withLock { $0 = origin }
        return origin
    }

    private func send(_ method: String, _ path: String, body: EJSON?, token: String?) async throws(AuthClientError) -> EJSON {
        try await exchange(method, try await origin() + path, body: body, token: token)
    }

    private func exchange(_ method: String, _ url: String, body: EJSON?, token: String?) async throws(AuthClientError) -> EJSON {
        do {
            return try await exchangeUnnamed(method, url, body: body, token: token)
        } catch {
            var named = error
            named.request = AuthClientError.requestLine(method, url)
            throw named
        }
    }

    private func exchangeUnnamed(_ method: String, _ url: String, body: EJSON?, token: String?) async throws(AuthClientError) -> EJSON {
        var headers = [("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let response = try await transport.send(
            TransportRequest(
                method: method, url: url, headers: headers,
                body: body?.encoded(.canonical),
                timeout: configuration.requestTimeout))
        // The origin is for error messages only: worked out when one is made.
        var server: String { AsyncHTTPTransport.origin(url) }
        let parsed: EJSON
        if response.body.isEmpty {
            parsed = [:]
        } else {
            do { parsed = try EJSON(parsing: response.body) } catch {
                throw AuthClientError(
                    code: AuthClientError.malformedResponse,
                    message: "\(server) answered \(response.status) with a body that is not JSON",
                    status: response.status)
            }
        }
        guard (200..<300).contains(response.status) else {
            if let error = ServiceError(body: parsed, status: response.status) { throw AuthClientError(error) }
            throw AuthClientError(
                code: AuthClientError.malformedResponse,
                message: "\(server) answered \(response.status) without an error body", status: response.status)
        }
        return parsed
    }
}
