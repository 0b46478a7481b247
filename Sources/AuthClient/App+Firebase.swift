// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc

/// Firebase Auth's REST API behind the app's operations, for an app made with a
/// ``FirebaseProject``: `accounts:signUp`, `signInWithPassword`, `signInWithCustomToken`,
/// `signInWithIdp`, `lookup`, `delete`, `sendOobCode`, `resetPassword`, `update`, and Secure
/// Token's refresh (packages/auth of firebase-js-sdk, read for what each call sends).
///
/// The user's access token is Firebase's ID token (an hour), refreshed before a request when it
/// has less than five minutes left, and once more when the server says it expired. Errors carry
/// App Services' code where one means the same (`InvalidPassword`, `AccountNameInUse`, ...), else
/// Firebase's server code, and always the SDKs' `auth/...` code (``AuthClientError/firebaseCode``).
extension App {
    /// The Firebase project this app speaks to; nil for App Services.
    public var firebase: FirebaseProject? { configuration.firebase }

    /// The error of an operation only App Services has, naming this app's protocol.
    func onlyAppServices(_ what: String) -> AuthClientError {
        AuthClientError(
            code: AuthClientError.notInProtocol,
            message: "\(what) is App Services' only: app '\(id)' speaks Firebase Auth")
    }

    /// POSTs `body` to Identity Toolkit's `method` (`accounts:signUp`, ...; `v2/...` for the
    /// v2 API) with the API key.
    func firebaseCall(_ project: FirebaseProject, _ method: String, _ body: EJSONDocument) async throws(AuthClientError) -> EJSON {
        let base =
            method.hasPrefix("v2/") && project.identityToolkit.hasSuffix("/v1")
            ? project.identityToolkit.dropLast(3) + "/" : project.identityToolkit + "/"
        return try await firebaseExchange(project, base + method, body: EJSON.document(body).encoded(.relaxed), form: false)
    }

    /// ``firebaseCall(_:_:_:)`` as the user of `userId`, their ID token in `idToken`: refreshed
    /// first when it expires within 5 minutes, and once more when the server refuses it.
    func firebaseCall(_ project: FirebaseProject, _ method: String, _ body: EJSONDocument, as userId: String) async throws(AuthClientError)
        -> EJSON
    {
        var token = try loggedIn(userId).accessToken ?? ""
        if Self.expiresSoon(token) { token = try await refreshAccessToken(userId: userId, replacing: token) }
        var sent = body
        sent["idToken"] = .string(token)
        do {
            return try await firebaseCall(project, method, sent)
        } catch  where ["TOKEN_EXPIRED", "INVALID_ID_TOKEN"].contains(error.details["firebaseError"]?.stringValue) {
            sent["idToken"] = .string(try await refreshAccessToken(userId: userId, replacing: token))
            return try await firebaseCall(project, method, sent)
        }
    }

    /// An ID token's claims (unverified: the client holds no key), or nil.
    static func claims(_ token: String) -> EJSON? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64.decode(String(parts[1])), let claims = try? EJSON(parsing: bytes) else { return nil }
        return claims
    }

    /// An ID token's `sub`, or nil.
    static func subject(_ token: String) -> String? { claims(token)?["sub"]?.stringValue }

    /// Whether an ID token expires within 5 minutes (or cannot be read).
    static func expiresSoon(_ token: String) -> Bool {
        guard let exp = claims(token)?["exp"]?.integerValue else { return true }
        return exp - Int64(time(nil)) < 300
    }

    /// A new ID token from the user's refresh token (Secure Token's `token`); a refused refresh
    /// token logs the user out here.
    func firebaseRefresh(_ project: FirebaseProject, userId: String) async throws(AuthClientError) -> String {
        let refresh = try loggedIn(userId).refreshToken ?? ""
        let reply: EJSON
        do {
            reply = try await firebaseExchange(
                project, project.secureToken + "/token",
                body: Array(FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", refresh)]).utf8), form: true)
        } catch  where error.status == 400 || error.status == 401 {
            try? logOutLocally(userId)
            throw error
        }
        guard let idToken = reply["id_token"]?.stringValue else { throw malformed("the refresh answer has no id_token") }
        let newRefresh = reply["refresh_token"]?.stringValue ?? refresh
        try change(userId) { record in
            record?.accessToken = idToken
            record?.refreshToken = newRefresh
        }
        return idToken
    }

    /// A login with `credentials` over Firebase's API, and the user's profile (`lookup`).
    func firebaseLogin(_ project: FirebaseProject, _ credentials: Credentials) async throws(AuthClientError) -> LoginReply {
        let (method, body) = try firebaseSignIn(credentials)
        let reply = try await firebaseLoginReply(project, try await firebaseCall(project, method, body))
        // A texted code's session is kept for another try until the login completes.
        if credentials.provider == "mfa", let token = credentials.body["mfaToken"]?.stringValue {
            firebasePhoneSignIns.withLock { $0[token] = nil }
        }
        return reply
    }

    /// The Identity Toolkit method and body that sign in with `credentials`.
    func firebaseSignIn(_ credentials: Credentials) throws(AuthClientError) -> (String, EJSONDocument) {
        let given = credentials.body
        switch credentials.provider {
        case ProviderType.anonymous:
            return ("accounts:signUp", ["returnSecureToken": true])
        case ProviderType.userpass:
            return (
                "accounts:signInWithPassword",
                ["email": given["username"] ?? "", "password": given["password"] ?? "", "returnSecureToken": true]
            )
        case Credentials.emailLinkProvider:
            return ("accounts:signInWithEmailLink", ["email": given["email"] ?? "", "oobCode": given["oobCode"] ?? ""])
        case ProviderType.customToken:
            return ("accounts:signInWithCustomToken", ["token": given["token"] ?? "", "returnSecureToken": true])
        case "mfa" where given["code"] != nil:
            // The second step of a sign-in that answered MFARequired (the v2 API): the code
            // texted for it (sendPhoneCode kept its sessionInfo), else a TOTP code.
            let token = given["mfaToken"]?.stringValue ?? ""
            if let session = firebasePhoneSignIns.withLock({ $0[token] }) {
                return (
                    "v2/accounts/mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": .string(token),
                        "phoneVerificationInfo": ["sessionInfo": .string(session), "code": given["code"] ?? ""],
                    ]
                )
            }
            return (
                "v2/accounts/mfaSignIn:finalize",
                ["mfaPendingCredential": given["mfaToken"] ?? "", "totpVerificationInfo": ["verificationCode": given["code"] ?? ""]]
            )
        case let type where type.hasPrefix("oauth2-") && given["requestUri"] != nil:
            // The page a redirect landed on, with the session that started it (signIn).
            return (
                "accounts:signInWithIdp",
                [
                    "requestUri": given["requestUri"] ?? "", "sessionId": given["sessionId"] ?? "", "returnSecureToken": true,
                    "returnIdpCredential": true,
                ]
            )
        case let type where type.hasPrefix("oauth2-") && given["pendingCredential"] != nil:
            // The account-exists conflict's credential (AuthClientError.pendingCredential),
            // linked by its pendingToken once the person signed in the other way.
            return (
                "accounts:signInWithIdp",
                [
                    "pendingToken": given["pendingCredential"] ?? "", "requestUri": "http://localhost", "returnSecureToken": true,
                    "returnIdpCredential": true,
                ]
            )
        case let type where type.hasPrefix("oauth2-"):
            var fields = [("providerId", Self.firebaseProviderId(type))]
            if let token = given["id_token"]?.stringValue ?? given["idToken"]?.stringValue {
                fields.append(("id_token", token))
            } else if let token = given["accessToken"]?.stringValue ?? given["access_token"]?.stringValue {
                fields.append(("access_token", token))
            } else {
                throw onlyAppServices("a sign-in with an authorization code or a login code")
            }
            return (
                "accounts:signInWithIdp",
                [
                    "postBody": .string(FormEncoding.encode(fields)), "requestUri": "http://localhost", "returnSecureToken": true,
                    "returnIdpCredential": true,
                ]
            )
        default:
            throw onlyAppServices("a login with provider '\(credentials.provider)'")
        }
    }

    /// A sign-in's answer as a login's: its tokens and the user's profile.
    func firebaseLoginReply(_ project: FirebaseProject, _ reply: EJSON) async throws(AuthClientError) -> LoginReply {
        if let pending = reply["mfaPendingCredential"]?.stringValue {
            // Firebase answers 200 with the pending credential; the SDKs raise it as
            // auth/multi-factor-auth-required, and so does this client, as MFARequired.
            var error = AuthClientError(
                code: "MFARequired", message: "this user has a second factor: complete the sign-in with a code", status: 200)
            let info = reply["mfaInfo"]?.arrayValue ?? []
            error.details = [
                "mfaToken": .string(pending), "mfaInfo": .array(info),
                "factors": .array(info.map { $0["phoneInfo"] != nil ? "phone" : "totp" }),
                "firebaseCode": "auth/multi-factor-auth-required",
            ]
            // The phones as App Services' error lists them (sendPhoneCode texts one).
            let phones: [EJSON] = info.compactMap { entry in
                guard let number = entry["phoneInfo"]?.stringValue else { return nil }
                return ["enrollmentId": entry["mfaEnrollmentId"] ?? "", "phoneNumber": .string(number)]
            }
            if !phones.isEmpty { error.details["phones"] = .array(phones) }
            throw error
        }
        if reply["needConfirmation"]?.boolValue == true {
            var error = Self.accountExists(reply)
            // Firebase lists only the identity providers that verified the email; a password
            // account is in the sign-in methods (unless the project hides them).
            if error.providers.isEmpty, let email = error.email, let methods = try? await signInMethods(email: email) {
                error.details["providers"] = .array(methods.map(EJSON.string))
            }
            throw error
        }
        // mfaSignIn:finalize answers the tokens alone: the user is the ID token's.
        guard let idToken = reply["idToken"]?.stringValue, let refresh = reply["refreshToken"]?.stringValue,
            let userId = reply["localId"]?.stringValue ?? Self.subject(idToken), !userId.isEmpty
        else { throw malformed("the sign-in answer has no tokens") }
        let (profile, identities): (UserProfile, [UserIdentity])
        if Self.claims(idToken)?["firebase"]?["sign_in_provider"]?.stringValue == "anonymous" {
            // An anonymous sign-in always makes a new user, with no profile and no provider:
            // the token says all a lookup would.
            (profile, identities) = (UserProfile(), [UserIdentity(id: userId, providerType: ProviderType.anonymous)])
        } else {
            (profile, identities) = try await firebaseProfile(project, idToken: idToken, userId: userId)
        }
        // signInWithIdp's oauthAccessToken / oauthIdToken: the provider's own tokens.
        let access = reply["oauthAccessToken"]?.stringValue, id = reply["oauthIdToken"]?.stringValue
        return LoginReply(
            userId: userId, access: idToken, refresh: refresh, deviceId: ObjectId.zero.hex, profile: profile, identities: identities,
            providerTokens: access == nil && id == nil ? nil : ProviderTokens(accessToken: access, idToken: id))
    }

    /// signInWithIdp's `needConfirmation` answer (another account holds the credential's
    /// verified email) as App Services' `AccountExistsWithDifferentCredential`, which the SDKs
    /// raise as `auth/account-exists-with-different-credential`: the email, the providers that
    /// verified it (`verifiedProvider`), and the credential as a pending one to link once the
    /// person signed in the other way (its `pendingToken`).
    static func accountExists(_ reply: EJSON) -> AuthClientError {
        let email = reply["email"]?.stringValue ?? ""
        var error = AuthClientError(
            code: "AccountExistsWithDifferentCredential",
            message: "an account with the email \(email) exists: sign in with one of its providers, then link this credential",
            status: 200)
        let provider = providerType(firebase: reply["providerId"]?.stringValue ?? "")
        let providers = (reply["verifiedProvider"]?.arrayValue ?? []).compactMap(\.stringValue).map(providerType(firebase:))
        error.details = [
            "email": .string(email), "provider": .string(provider), "providers": .array(providers.map(EJSON.string)),
            "firebaseCode": "auth/account-exists-with-different-credential",
        ]
        if let token = reply["pendingToken"]?.stringValue { error.details["pendingCredential"] = .string(token) }
        return error
    }

    /// The user's profile and identities from `accounts:lookup`, in App Services' shapes: the
    /// display name and photo as `name` and `picture_url`, each provider as authsh names it
    /// (`password` as `local-userpass`, `google.com` as `oauth2-google`, ...); a user with no
    /// provider is anonymous.
    func firebaseProfile(_ project: FirebaseProject, idToken: String, userId: String) async throws(AuthClientError) -> (
        UserProfile, [UserIdentity]
    ) {
        try firebaseProfile(try await firebaseCall(project, "accounts:lookup", ["idToken": .string(idToken)]), userId: userId)
    }

    /// ``firebaseProfile(_:idToken:userId:)`` as the logged-in user `userId` (their ID token
    /// refreshed when it expired).
    func firebaseProfile(_ project: FirebaseProject, of userId: String) async throws(AuthClientError) -> (UserProfile, [UserIdentity]) {
        try firebaseProfile(try await firebaseCall(project, "accounts:lookup", [:], as: userId), userId: userId)
    }

    private func firebaseProfile(_ reply: EJSON, userId: String) throws(AuthClientError) -> (UserProfile, [UserIdentity]) {
        guard let user = reply["users"]?.arrayValue?.first else { throw malformed("lookup found no user") }
        var data: EJSONDocument = [:]
        if let email = user["email"]?.stringValue { data["email"] = .string(email) }
        if let name = user["displayName"]?.stringValue { data["name"] = .string(name) }
        if let url = user["photoUrl"]?.stringValue { data["picture_url"] = .string(url) }
        if let verified = user["emailVerified"] { data["email_verified"] = verified }
        if let phone = user["phoneNumber"]?.stringValue { data["phone_number"] = .string(phone) }
        var identities: [UserIdentity] = (user["providerUserInfo"]?.arrayValue ?? []).compactMap { info in
            guard let provider = info["providerId"]?.stringValue else { return nil }
            let raw = info["rawId"]?.stringValue ?? info["federatedId"]?.stringValue ?? userId
            return UserIdentity(id: raw, providerType: Self.providerType(firebase: provider), email: info["email"]?.stringValue)
        }
        if identities.isEmpty { identities = [UserIdentity(id: userId, providerType: ProviderType.anonymous)] }
        return (UserProfile(data: data), identities)
    }

    /// Firebase's provider id of an authsh provider type (`oauth2-google` is `google.com`, an
    /// app's `oauth2-NAME` is `oidc.NAME`).
    static func firebaseProviderId(_ type: String) -> String {
        switch type {
        case ProviderType.userpass: "password"
        case ProviderType.phone: "phone"
        case "oauth2-google": "google.com"
        case "oauth2-apple": "apple.com"
        case "oauth2-facebook": "facebook.com"
        case "oauth2-github": "github.com"
        case let other where other.hasPrefix("oauth2-"): "oidc." + other.dropFirst(7)
        default: type
        }
    }

    /// authsh's provider type of a Firebase provider id.
    static func providerType(firebase provider: String) -> String {
        switch provider {
        case "password": ProviderType.userpass
        case "phone": ProviderType.phone
        case "google.com": "oauth2-google"
        case "apple.com": "oauth2-apple"
        case "facebook.com": "oauth2-facebook"
        case "github.com": "oauth2-github"
        case let other where other.hasPrefix("oidc."): "oauth2-" + other.dropFirst(5)
        default: provider
        }
    }

    private func firebaseExchange(_ project: FirebaseProject, _ url: String, body: [UInt8], form: Bool) async throws(AuthClientError) -> EJSON {
        let full = url + "?key=" + FormEncoding.escape(project.apiKey)
        let response: TransportResponse
        do {
            response = try await transport.send(
                TransportRequest(
                    method: "POST", url: full,
                    headers: [("Accept", "application/json"), ("Content-Type", form ? "application/x-www-form-urlencoded" : "application/json")],
                    body: body, timeout: configuration.requestTimeout))
        } catch {
            var named = error
            named.request = AuthClientError.requestLine("POST", url)
            throw named
        }
        let parsed = (try? EJSON(parsing: response.body)) ?? .null
        guard (200..<300).contains(response.status) else {
            var error = Self.firebaseError(parsed, status: response.status, origin: project.origin)
            error.request = AuthClientError.requestLine("POST", url)
            throw error
        }
        guard case .document = parsed else {
            throw AuthClientError(
                code: AuthClientError.malformedResponse, message: "\(project.origin) answered \(response.status) with a body that is not JSON",
                status: response.status)
        }
        return parsed
    }

    /// Firebase's error body (`{"error": {"code", "message": "EMAIL_EXISTS : ..."}}`) as an
    /// error: App Services' code where one means the same, the SDKs' `auth/...` code beside it.
    static func firebaseError(_ body: EJSON, status: Int, origin: String) -> AuthClientError {
        guard let text = body["error"]?["message"]?.stringValue else {
            return AuthClientError(
                code: AuthClientError.malformedResponse, message: "\(origin) answered \(status) without an error body", status: status)
        }
        var server = String(text.prefix { $0 != " " && $0 != ":" })
        var detail = text.firstRange(of: " : ").map { String(text[$0.upperBound...]) }
        // A message that is no code (the emulator's "Sign-in with IDP is not yet supported."):
        // the error's status names it (NOT_IMPLEMENTED), and the message is the whole text.
        if server.isEmpty || !server.utf8.allSatisfy({ (65...90).contains($0) || (48...57).contains($0) || $0 == 95 }) {
            server = body["error"]?["status"]?.stringValue ?? "HTTP_\(status)"
            detail = text
        }
        var error = AuthClientError(code: appServicesCode[server] ?? server, message: detail ?? server, status: status)
        error.details["firebaseError"] = .string(server)
        error.details["firebaseCode"] = .string("auth/" + (sdkCode[server] ?? server.lowercased().replacing("_", with: "-")))
        return error
    }

    /// Firebase's server codes that mean one of App Services' codes.
    static let appServicesCode: [String: String] = [
        "INVALID_PASSWORD": "InvalidPassword", "INVALID_LOGIN_CREDENTIALS": "InvalidPassword", "EMAIL_NOT_FOUND": "InvalidPassword",
        "EMAIL_EXISTS": "AccountNameInUse", "USER_DISABLED": "UserDisabled", "TOO_MANY_ATTEMPTS_TRY_LATER": "TooManyRequests",
        "INVALID_ID_TOKEN": "InvalidSession", "TOKEN_EXPIRED": "InvalidSession", "USER_NOT_FOUND": "InvalidSession",
        "INVALID_REFRESH_TOKEN": "InvalidSession", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": "RequiresRecentLogin",
        "INVALID_CODE": "InvalidMFACode", "INVALID_PENDING_TOKEN": "InvalidParameter",
    ]

    /// The JavaScript SDK's `auth/...` names of server codes (packages/auth/src/api/errors.ts);
    /// any other is its code in lower case with dashes, as the SDK makes it.
    static let sdkCode: [String: String] = [
        "INVALID_PASSWORD": "wrong-password", "INVALID_LOGIN_CREDENTIALS": "invalid-credential", "EMAIL_NOT_FOUND": "user-not-found",
        "EMAIL_EXISTS": "email-already-in-use", "USER_DISABLED": "user-disabled", "TOO_MANY_ATTEMPTS_TRY_LATER": "too-many-requests",
        "INVALID_ID_TOKEN": "invalid-user-token", "TOKEN_EXPIRED": "user-token-expired", "USER_NOT_FOUND": "user-token-expired",
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": "requires-recent-login", "FEDERATED_USER_ID_ALREADY_LINKED": "credential-already-in-use",
        "INVALID_IDP_RESPONSE": "invalid-credential", "INVALID_PENDING_TOKEN": "invalid-credential", "INVALID_OOB_CODE": "invalid-action-code",
        "EXPIRED_OOB_CODE": "expired-action-code", "WEAK_PASSWORD": "weak-password", "MISSING_PASSWORD": "missing-password",
        "INVALID_EMAIL": "invalid-email", "OPERATION_NOT_ALLOWED": "operation-not-allowed", "INVALID_CODE": "invalid-verification-code",
        "PASSWORD_LOGIN_DISABLED": "operation-not-allowed", "ADMIN_ONLY_OPERATION": "admin-restricted-operation",
    ]
}
