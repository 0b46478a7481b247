// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto
import Synchronization

/// How ``App/signIn(provider:scopes:customParameters:presenter:timeout:)`` reaches the person.
public enum SignInPresenter: Sendable {
    /// The loopback flow in the person's browser: opened with `$BROWSER`, or `xdg-open` when
    /// there is a display; `tell` gets one line to show either way (the URL when no browser
    /// could be opened).
    case browser(tell: @Sendable (String) -> Void)
    /// The loopback flow, the URL handed to `open` (to print it, or to drive a browser).
    case url(@Sendable (String) async throws -> Void)
    /// The device flow (RFC 8628), for a terminal with no browser: `show` gets the code and
    /// where to enter it, then the client polls.
    case device(show: @Sendable (DeviceAuthorization) -> Void)
    /// Dev servers only: approve as `identity` through the server's dev identity provider, with
    /// no browser (the whole protocol still runs); through the device flow with `device`.
    case devIdentity(DevIdentity, device: Bool)
}

/// An identity of the dev identity provider.
public struct DevIdentity: Sendable, Equatable {
    public var email: String
    public var name: String?
    public var verified: Bool
    public init(email: String, name: String? = nil, verified: Bool = true) {
        self.email = email
        self.name = name
        self.verified = verified
    }
}

/// A device authorization under way: what the person types, and where.
public struct DeviceAuthorization: Sendable, Equatable {
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String?
    public var expiresIn: Int
    public var interval: Int
}

extension App {
    /// Signs in with an identity provider (`github`, `google`, or any `oauth2-*` provider the
    /// server has), and the user becomes current.
    ///
    /// The loopback flow (RFC 8252 with PKCE): a listener on 127.0.0.1 and an ephemeral port,
    /// the browser sent to the server's sign-in URL, the IdP's answer back on the listener as a
    /// single-use login code (no token in any URL), redeemed with the PKCE verifier. Or the
    /// device flow, per `presenter`.
    /// - Parameters:
    ///   - scopes: the IdP scopes to ask for (default: the server's configured ones).
    ///   - customParameters: extra authorize parameters for the IdP (`allow_signup`, `login_hint`, `prompt`).
    ///   - timeout: how long the person has (default 5 minutes); then `SignInTimedOut`.
    /// - Throws: `Cancelled` when the task is cancelled, `SignInFailed` when the person or the
    ///   IdP refused, and any server error.
    @discardableResult
    public func signIn(
        provider: String, scopes: [String]? = nil, customParameters: [String: String] = [:],
        presenter: SignInPresenter, timeout: Duration = .seconds(300)
    ) async throws(AuthClientError) -> User {
        let type = Credentials.oauthProviderType(provider)
        if let firebase {
            if case .device = presenter { throw onlyAppServices("the device sign-in") }
            if case .devIdentity(_, device: true) = presenter { throw onlyAppServices("the device sign-in") }
            return try await firebaseRedirectSignIn(
                firebase, type, scopes: scopes, customParameters: customParameters, presenter: presenter, timeout: timeout)
        }
        switch presenter {
        case .device(let show):
            return try await deviceSignIn(type, scopes: scopes, timeout: timeout) { auth throws(AuthClientError) in show(auth) }
        case .devIdentity(let identity, device: true):
            return try await deviceSignIn(type, scopes: scopes, timeout: timeout) { auth throws(AuthClientError) in
                _ = try await self.hop(
                    "POST", try await self.origin() + "/dev/idp/api/device/approve",
                    json: ["userCode": .string(auth.userCode), "identity": identity.ejson])
            }
        default:
            return try await loopbackSignIn(type, scopes: scopes, customParameters: customParameters, presenter: presenter, timeout: timeout)
        }
    }

    private func loopbackSignIn(
        _ type: String, scopes: [String]?, customParameters: [String: String],
        presenter: SignInPresenter, timeout: Duration
    ) async throws(AuthClientError) -> User {
        let verifier = Base64.encode(Array(SystemRandomNumberGenerator.bytes(32)), urlSafe: true)
        let challenge = Base64.encode(Array(SHA256.hash(data: Array(verifier.utf8))), urlSafe: true)
        let state = Hex.encode(SystemRandomNumberGenerator.bytes(16))
        let listener = try LoopbackListener(expectedState: state)
        defer { listener.close() }
        var query = [
            ("redirect", listener.redirectURI), ("state", state), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]
        if let scopes { query.append(("scopes", scopes.joined(separator: ","))) }
        for (key, value) in customParameters.sorted(by: { $0.key < $1.key }) { query.append(("idp_" + key, value)) }
        let url = try await origin() + Routes.login(id, provider: type) + "?" + FormEncoding.encode(query)
        let fields = try await callback(on: listener, presenting: url, presenter, timeout: timeout)
        if let error = FormEncoding.value("error", in: fields) {
            throw AuthClientError(code: AuthClientError.signInFailed, message: error)
        }
        guard let code = FormEncoding.value("code", in: fields) else {
            throw malformed("the sign-in callback has neither code nor error")
        }
        return try await login(credentials: .loginCode(provider: type, code: code, verifier: verifier))
    }

    /// Presents `url` and waits for the browser's answer on `listener`: its query.
    /// `SignInTimedOut` after `timeout`, `Cancelled` when the task is cancelled.
    func callback(
        on listener: LoopbackListener, presenting url: String, _ presenter: SignInPresenter, timeout: Duration
    ) async throws(AuthClientError) -> [(String, String)] {
        let timedOut = Atomic<Bool>(false)
        let serving = Task { () async -> Result<[(String, String)], AuthClientError> in
            do throws(AuthClientError) { return .success(try await listener.callback()) } catch { return .failure(error) }
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            timedOut.store(true, ordering: .releasing)
            listener.close()
        }
        defer { timer.cancel() }
        let fields: [(String, String)]
        do {
            fields = try await withTaskCancellationHandler { () async throws(AuthClientError) -> [(String, String)] in
                try await present(url, presenter)
                return try await serving.value.get()
            } onCancel: {
                listener.close()
            }
        } catch {
            if timedOut.load(ordering: .acquiring) {
                throw AuthClientError(
                    code: AuthClientError.signInTimedOut, message: "the sign-in was not completed within \(timeout.components.seconds) s")
            }
            listener.close()
            if let e = error as? AuthClientError { throw e }
            throw AuthClientError(code: AuthClientError.cancelled, message: "the sign-in was cancelled")
        }
        return fields
    }

    func present(_ url: String, _ presenter: SignInPresenter) async throws(AuthClientError) {
        switch presenter {
        case .browser(let tell):
            if BrowserOpener.open(url) {
                tell("Opened your browser to sign in. If it did not open, go to: \(url)")
            } else {
                tell("Open this URL in a browser to sign in: \(url)")
            }
        case .url(let open):
            do { try await open(url) } catch let e as AuthClientError { throw e } catch {
                throw AuthClientError(code: AuthClientError.signInFailed, message: "\(error)")
            }
        case .devIdentity(let identity, _):
            // App Services' start is the server's URL, which redirects to the IdP; a Firebase
            // redirect's authUri is the IdP's own.
            try await approveAsDev(url, identity, startsAtServer: firebase == nil)
        case .device:
            break
        }
    }

    /// Plays the person at the dev identity provider: follows the server's redirect to the
    /// IdP, approves there as `identity`, and follows the IdP's redirect through the server's
    /// callback to this client's listener.
    private func approveAsDev(_ url: String, _ identity: DevIdentity, startsAtServer: Bool) async throws(AuthClientError) {
        var authorize = url
        if startsAtServer {
            let start = try await hop("GET", url)
            guard let location = start.header("Location") else { throw unexpected(start, "the sign-in start") }
            authorize = location
        }
        var base = firebase?.origin ?? ""
        if firebase == nil { base = try await origin() }
        let approved = try await hop(
            "POST", base + "/dev/idp/api/approve",
            json: ["url": .string(authorize), "identity": identity.ejson])
        guard let callback = (try? EJSON(parsing: approved.body))?["redirect"]?.stringValue else {
            throw unexpected(approved, "the dev identity provider")
        }
        let back = try await hop("GET", callback)
        guard let loopback = back.header("Location") else { throw unexpected(back, "the sign-in callback") }
        _ = try await hop("GET", loopback)
    }

    private func deviceSignIn(
        _ type: String, scopes: [String]?, timeout: Duration,
        show: (DeviceAuthorization) async throws(AuthClientError) -> Void
    ) async throws(AuthClientError) -> User {
        var body: EJSONDocument = [:]
        if let scopes { body["scopes"] = .array(scopes.map(EJSON.string)) }
        let reply = try await request("POST", Routes.app(id) + "/auth/providers/\(type)/device", body: .document(body), auth: .none)
        guard let device = reply["device_code"]?.stringValue, let userCode = reply["user_code"]?.stringValue,
            let uri = reply["verification_uri"]?.stringValue
        else { throw malformed("the device answer has no codes") }
        let auth = DeviceAuthorization(
            userCode: userCode, verificationURI: uri,
            verificationURIComplete: reply["verification_uri_complete"]?.stringValue,
            expiresIn: Int(reply["expires_in"]?.integerValue ?? 900),
            interval: Int(max(1, reply["interval"]?.integerValue ?? 5)))
        try await show(auth)
        var interval = auth.interval
        let deadline = ContinuousClock.now + min(timeout, .seconds(auth.expiresIn))
        while true {
            do {
                return try await login(credentials: .deviceCode(provider: type, code: device))
            } catch  where error.code == "AuthorizationPending" {
            } catch  where error.code == "SlowDown" {
                interval += 5
            }
            guard ContinuousClock.now + .seconds(interval) < deadline else {
                throw AuthClientError(code: AuthClientError.signInTimedOut, message: "the device sign-in was not approved in time")
            }
            do { try await Task.sleep(for: .seconds(interval)) } catch {
                throw AuthClientError(code: AuthClientError.cancelled, message: "the sign-in was cancelled")
            }
        }
    }

    /// One request whose answer (a redirect included) is returned as is.
    func hop(_ method: String, _ url: String, json: EJSON? = nil) async throws(AuthClientError) -> TransportResponse {
        var headers = [("Accept", "application/json")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await transport.send(
            TransportRequest(
                method: method, url: url, headers: headers,
                body: json?.encoded(.relaxed), timeout: configuration.requestTimeout))
        if response.status >= 400, let body = try? EJSON(parsing: response.body), let error = ServiceError(body: body, status: response.status) {
            throw AuthClientError(error)
        }
        return response
    }

    private func unexpected(_ response: TransportResponse, _ step: String) -> AuthClientError {
        malformed("\(step) answered \(response.status), not the redirect the sign-in expects")
    }
}

extension DevIdentity {
    var ejson: EJSON {
        var d: EJSONDocument = ["email": .string(email), "verified": .bool(verified)]
        if let name { d["name"] = .string(name) }
        return .document(d)
    }
}
