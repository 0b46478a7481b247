// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import HTTPTypes
import Hummingbird

/// The Firebase Auth API's client routes, at the paths the Auth emulator serves them (the
/// SDKs' emulator switch points at the server's root): `/identitytoolkit.googleapis.com/v1/
/// accounts:METHOD` and `/securetoken.googleapis.com/v1/token`. Each takes the project's API
/// key (`?key=` or `X-Goog-Api-Key`) and answers in Firebase's fields and error body
/// (``FirebaseError``). The rules are ``FirebaseAccounts``'.
struct FirebaseController {
    let projects: FirebaseProjects
    let accounts: FirebaseAccounts
    let actions: FirebaseActions
    let emailChange: FirebaseEmailChange
    let phone: FirebasePhoneSignIn
    let idp: FirebaseIdpSignIn
    let secondFactors: FirebaseSecondFactors
    /// Where the links of mails point when the app names no page.
    let origin: PublicOrigin

    /// The methods of `accounts:` this server answers; any other is Google's 404.
    static let methods = [
        "signUp", "signInWithPassword", "signInWithCustomToken", "signInWithIdp", "lookup", "update", "delete", "sendOobCode",
        "resetPassword", "createAuthUri", "signInWithEmailLink", "sendVerificationCode", "signInWithPhoneNumber",
    ]

    func addRoutes(to router: Router<AuthRequestContext>) {
        router.post("/identitytoolkit.googleapis.com/v1/:method", use: accounts)
        router.post("/identitytoolkit.googleapis.com/v2/accounts/:method", use: mfa)
        router.post("/securetoken.googleapis.com/v1/token", use: token)
    }

    /// `accounts:signUp`, `accounts:signInWithPassword`, `accounts:signInWithCustomToken`,
    /// `accounts:lookup`, `accounts:update`, `accounts:delete`, `accounts:sendOobCode`,
    /// `accounts:resetPassword`.
    @Sendable func accounts(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await Self.answering {
            let method = context.parameters.get("method") ?? ""
            guard method.hasPrefix("accounts:"), Self.methods.contains(String(method.dropFirst(9))) else {
                throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound")
            }
            let project = try projects.project(apiKey: Self.apiKey(request))
            let body = try await InputFields.read(request, context: context)
            switch method.dropFirst(9) {
            case "signUp": return try await signUp(body, project: project, address: context.clientAddress)
            case "signInWithPassword":
                let signedIn = try await accounts.signIn(
                    project: project, email: try Self.string(body, "email"), password: try Self.string(body, "password"),
                    address: context.clientAddress)
                var answer = Self.tokens(signedIn, kind: "VerifyPasswordResponse")
                answer["registered"] = true
                answer["displayName"] = ""
                return answer
            case "signInWithCustomToken":
                let signedIn = try await accounts.signIn(
                    customToken: try Self.string(body, "token", missing: "MISSING_CUSTOM_TOKEN"), project: project,
                    address: context.clientAddress)
                var answer = Self.tokens(signedIn, kind: "VerifyCustomTokenResponse")
                answer["isNewUser"] = .bool(signedIn.isNew)
                return answer
            case "createAuthUri":
                if let providerId = try Self.optionalString(body, "providerId") {
                    return try await idp.createAuthUri(
                        providerId: providerId, continueUri: try Self.string(body, "continueUri", missing: "MISSING_CONTINUE_URI"),
                        scopes: try Self.optionalString(body, "oauthScope").map(Self.scopes),
                        parameters: try Self.customParameters(body), project: project, address: context.clientAddress)
                }
                let email = try Self.string(body, "identifier", missing: "MISSING_IDENTIFIER")
                var answer: EJSONDocument = ["kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": .string(accounts.clock.newId())]
                // With email enumeration protection, nothing else: which emails have accounts is hidden.
                if let methods = try await accounts.signInMethods(email: email, project: project, address: context.clientAddress) {
                    answer["registered"] = .bool(methods.registered)
                    answer["allProviders"] = .array(methods.allProviders.map(EJSON.string))
                    answer["signinMethods"] = .array(methods.signInMethods.map(EJSON.string))
                }
                return answer
            case "signInWithEmailLink":
                let email = try Self.string(body, "email", missing: "MISSING_EMAIL")
                let code = try Self.string(body, "oobCode", missing: "MISSING_OOB_CODE")
                let signedIn: FirebaseAccounts.SignedIn
                if let idToken = try Self.optionalString(body, "idToken") {
                    AuditTrail.event("link")
                    signedIn = try await actions.linkEmailLink(
                        idToken: idToken, email: email, code: code, project: project, address: context.clientAddress)
                } else {
                    signedIn = try await actions.signInWithEmailLink(email: email, code: code, project: project, address: context.clientAddress)
                }
                var answer = Self.tokens(signedIn, kind: "EmailLinkSigninResponse")
                answer["isNewUser"] = .bool(signedIn.isNew)
                return answer
            case "signInWithIdp":
                return try await signInWithIdp(body, project: project, address: context.clientAddress)
            case "sendVerificationCode":
                let sessionInfo = try await phone.sendCode(
                    phoneNumber: try Self.optionalString(body, "phoneNumber"), project: project, address: context.clientAddress)
                return ["sessionInfo": .string(sessionInfo)]
            case "signInWithPhoneNumber":
                if body.document["temporaryProof"] != nil {
                    throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "temporaryProof is not built: sign in with sessionInfo and code")
                }
                let idToken = try Self.optionalString(body, "idToken")
                if idToken != nil { AuditTrail.event("link") }
                let (signedIn, number) = try await phone.signIn(
                    sessionInfo: try Self.string(body, "sessionInfo", missing: "MISSING_SESSION_INFO"),
                    code: try Self.string(body, "code", missing: "MISSING_CODE"), idToken: idToken, project: project,
                    address: context.clientAddress)
                var answer = Self.tokens(signedIn, kind: "VerifyPhoneNumberResponse")
                answer["isNewUser"] = .bool(signedIn.isNew)
                answer["phoneNumber"] = .string(number)
                return answer
            case "sendOobCode":
                let type = try FirebaseActions.RequestType(kind: try Self.string(body, "requestType", missing: "MISSING_REQ_TYPE"))
                AuditTrail.event(type.requestedEvent)
                let email: String
                if type == .verifyAndChangeEmail {
                    email = try await emailChange.send(
                        idToken: try Self.optionalString(body, "idToken"), newEmail: try Self.optionalString(body, "newEmail"),
                        continueUrl: try Self.optionalString(body, "continueUrl"), project: project, links: links(request),
                        address: context.clientAddress)
                } else {
                    email = try await actions.send(
                        type, email: try Self.optionalString(body, "email"), idToken: try Self.optionalString(body, "idToken"),
                        continueUrl: try Self.optionalString(body, "continueUrl"), project: project, apiKey: Self.apiKey(request),
                        origin: origin.mailLinks(request), address: context.clientAddress)
                }
                return ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)]
            case "resetPassword":
                let code = try Self.string(body, "oobCode", missing: "MISSING_OOB_CODE")
                if let password = try Self.optionalString(body, "newPassword") {
                    let email = try await actions.resetPassword(
                        code: code, newPassword: password, project: project, address: context.clientAddress)
                    return ["kind": "identitytoolkit#ResetPasswordResponse", "email": .string(email), "requestType": "PASSWORD_RESET"]
                }
                AuditTrail.event("action_code_checked")
                let found = try await actions.check(code: code, project: project, address: context.clientAddress)
                var answer: EJSONDocument = [
                    "kind": "identitytoolkit#ResetPasswordResponse", "email": .string(found.email), "requestType": .string(found.type.rawValue),
                ]
                if let newEmail = found.newEmail { answer["newEmail"] = .string(newEmail) }
                return answer
            case "update" where body.document["oobCode"] != nil:
                return try await applyCode(try Self.string(body, "oobCode", missing: "INVALID_OOB_CODE"), request, context, project)
            case "update":
                // The Admin API's fields: never a user's own to set.
                if body.document["customAttributes"] != nil { throw FirebaseError.invalid("INSUFFICIENT_PERMISSION") }
                if body.document["disableUser"] != nil || body.document["validSince"] != nil {
                    throw FirebaseError.invalid("OPERATION_NOT_ALLOWED")
                }
                let update = try Self.update(body)
                AuditTrail.event(
                    update.email != nil
                        ? "email_changed"
                        : update.password != nil ? "password_changed" : !update.deleteProviders.isEmpty ? "unlink" : "profile_updated")
                let (user, movedFrom) = try await accounts.update(
                    idToken: try Self.string(body, "idToken", missing: "INVALID_ID_TOKEN"), update, project: project,
                    address: context.clientAddress)
                if let movedFrom, let email = FirebaseIdentities.email(of: user)?.email {
                    try await emailChange.notifyOldAddress(movedFrom, movedTo: email, app: project.app, links: links(request))
                }
                var answer = FirebaseUserInfo.describe(user)
                answer["kind"] = "identitytoolkit#SetAccountInfoResponse"
                return answer
            case "delete":
                try await accounts.delete(idToken: try Self.string(body, "idToken", missing: "INVALID_ID_TOKEN"), project: project)
                return ["kind": "identitytoolkit#DeleteAccountResponse"]
            default:
                let user = try await accounts.user(idToken: try Self.string(body, "idToken", missing: "INVALID_ID_TOKEN"), project: project)
                let factors = FirebaseSecondFactors.mfaInfo(try await accounts.store.secondFactors(userId: user.id))
                return [
                    "kind": "identitytoolkit#GetAccountInfoResponse", "users": [.document(FirebaseUserInfo.describe(user, mfaInfo: factors))],
                ]
            }
        }
    }

    /// `update` with an `oobCode` (the SDKs' `applyActionCode`): a `VERIFY_EMAIL` code proves
    /// the email, a `VERIFY_AND_CHANGE_EMAIL` or `RECOVER_EMAIL` code moves the account
    /// (``FirebaseEmailChange``).
    private func applyCode(
        _ text: String, _ request: Request, _ context: AuthRequestContext, _ project: FirebaseProjects.Project
    ) async throws -> EJSONDocument {
        let code = try await actions.parts(text, project: project, address: context.clientAddress)
        var answer: EJSONDocument
        if let (email, user) = try await actions.verifyEmail(code, project: project) {
            AuditTrail.event("confirm")
            answer = user.map { FirebaseUserInfo.describe($0) } ?? [:]
            answer["email"] = .string(email)
        } else if let changed = try await emailChange.apply(code, project: project, links: links(request)) {
            AuditTrail.event(changed.type == .verifyAndChangeEmail ? "email_changed" : "email_recovered")
            answer = changed.user.map { FirebaseUserInfo.describe($0) } ?? [:]
            if changed.type == .verifyAndChangeEmail {
                answer["email"] = .string(changed.newEmail)
                answer["newEmail"] = .string(changed.newEmail)
            } else {
                answer["email"] = .string(changed.email)
            }
        } else {
            throw FirebaseError.invalid("INVALID_OOB_CODE")
        }
        answer["kind"] = "identitytoolkit#SetAccountInfoResponse"
        answer["emailVerified"] = true
        return answer
    }

    /// Where the links of the request's mails point, and the API key they carry.
    private func links(_ request: Request) -> FirebaseEmailChange.Links {
        FirebaseEmailChange.Links(origin: origin.mailLinks(request), apiKey: Self.apiKey(request))
    }

    /// `accounts:signUp`: with an `idToken`, an email/password identity linked to its user;
    /// else anonymous with no email, else a new email/password user.
    private func signUp(_ body: InputFields, project: FirebaseProjects.Project, address: String) async throws -> EJSONDocument {
        let signedIn: FirebaseAccounts.SignedIn
        if let idToken = try Self.optionalString(body, "idToken") {
            AuditTrail.event("link")
            signedIn = try await accounts.link(
                idToken: idToken, email: try Self.string(body, "email", missing: "MISSING_EMAIL"),
                password: try Self.string(body, "password", missing: "MISSING_PASSWORD"), project: project, address: address)
        } else if let email = try Self.optionalString(body, "email") {
            signedIn = try await accounts.signUp(
                project: project, email: email, password: try Self.string(body, "password", missing: "MISSING_PASSWORD"),
                address: address)
        } else {
            signedIn = try await accounts.signUpAnonymously(project: project, address: address)
        }
        return Self.tokens(signedIn, kind: "SignupNewUserResponse")
    }

    /// `securetoken.googleapis.com/v1/token` (`grant_type=refresh_token`, a form or JSON).
    @Sendable func token(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await Self.answering {
            let project = try projects.project(apiKey: Self.apiKey(request))
            let fields = try await FormRequest.form(request, context)
            guard FormEncoding.value("grant_type", in: fields) == "refresh_token" else {
                throw FirebaseError.invalid("INVALID_GRANT_TYPE")
            }
            guard let refreshToken = FormEncoding.value("refresh_token", in: fields), !refreshToken.isEmpty else {
                throw FirebaseError.invalid("MISSING_REFRESH_TOKEN")
            }
            let signedIn = try await accounts.refresh(refreshToken, project: project)
            return [
                "access_token": .string(signedIn.idToken), "expires_in": .string(String(FirebaseIDTokens.lifetime)),
                "token_type": "Bearer", "refresh_token": .string(signedIn.refreshToken), "id_token": .string(signedIn.idToken),
                "user_id": .string(signedIn.user.id), "project_id": .string(project.id),
            ]
        }
    }

    // MARK: encoding

    /// A login's answer: `{kind, localId, email, idToken, refreshToken, expiresIn}`.
    static func tokens(_ s: FirebaseAccounts.SignedIn, kind: String) -> EJSONDocument {
        var answer: EJSONDocument = [
            "kind": .string("identitytoolkit#" + kind), "localId": .string(s.user.id), "idToken": .string(s.idToken),
            "refreshToken": .string(s.refreshToken), "expiresIn": .string(String(FirebaseIDTokens.lifetime)),
        ]
        if let (email, _) = FirebaseIdentities.email(of: s.user) { answer["email"] = .string(email) }
        return answer
    }

    // MARK: decoding

    /// The changes of an `accounts:update` body.
    static func update(_ body: InputFields) throws(FirebaseError) -> FirebaseAccounts.Update {
        FirebaseAccounts.Update(
            displayName: try optionalString(body, "displayName"), photoUrl: try optionalString(body, "photoUrl"),
            deleteAttributes: try strings(body, "deleteAttribute"), password: try optionalString(body, "password"),
            deleteProviders: try strings(body, "deleteProvider"), email: try optionalString(body, "email"))
    }

    /// An optional array of strings (absent: empty).
    static func strings(_ body: InputFields, _ key: String) throws(FirebaseError) -> [String] {
        let items: [EJSON]
        do { items = try body.array(key, atMost: 20) } catch { throw FirebaseError.invalid("INVALID_ARGUMENT", error.message) }
        var found: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must hold strings") }
            found.append(text)
        }
        return found
    }

    /// `oauthScope`'s scopes: separated by commas or spaces, or Firebase's JSON form
    /// (`{"github.com": "repo,user"}`), whose values are taken.
    static func scopes(_ text: String) -> [String] {
        var text = text
        if text.hasPrefix("{"), case .document(let d)? = try? EJSON(parsing: Array(text.utf8)) {
            text = d.compactMap { $0.1.stringValue }.joined(separator: ",")
        }
        return text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// `customParameter`: an object of strings (the JS SDK's), or a list of `{key, value}`
    /// (the REST reference's); at most 20.
    static func customParameters(_ body: InputFields) throws(FirebaseError) -> [(String, String)] {
        var found: [(String, String)] = []
        switch body.document["customParameter"] {
        case nil, .null?: return []
        case .document(let d)?:
            for (key, value) in d {
                guard let text = value.stringValue else { throw FirebaseError.invalid("INVALID_ARGUMENT", "customParameter holds strings") }
                found.append((key, text))
            }
        case .array(let items)?:
            for item in items {
                guard let key = item["key"]?.stringValue, let value = item["value"]?.stringValue else {
                    throw FirebaseError.invalid("INVALID_ARGUMENT", "customParameter's entries are {key, value} strings")
                }
                found.append((key, value))
            }
        default: throw FirebaseError.invalid("INVALID_ARGUMENT", "customParameter must be an object of strings")
        }
        guard found.count <= 20 else { throw FirebaseError.invalid("INVALID_ARGUMENT", "customParameter holds at most 20 entries") }
        return found
    }

    /// The request's API key: `?key=`, else the `X-Goog-Api-Key` header.
    static func apiKey(_ request: Request) -> String? {
        request.uri.queryParameters.get("key") ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
    }

    /// A required string field; `missing` names Firebase's error for its absence.
    static func string(_ body: InputFields, _ key: String, missing: String? = nil) throws(FirebaseError) -> String {
        guard let value = try optionalString(body, key), !value.isEmpty else {
            throw FirebaseError.invalid(missing ?? "MISSING_" + key.uppercased())
        }
        return value
    }

    static func optionalString(_ body: InputFields, _ key: String) throws(FirebaseError) -> String? {
        do { return try body.optionalString(key) } catch { throw FirebaseError.invalid("INVALID_ARGUMENT", error.message) }
    }

    /// Runs `body` and answers its value, or its failure in Firebase's error body.
    /// Hooks run inside see `api` `firebase` (``ClientAPI``).
    static func answering(_ body: () async throws -> EJSONDocument) async throws -> Response {
        do {
            let answer = try await ClientAPI.$current.withValue(.firebase) { try await body() }
            return JSONResponse.make(.document(answer), mode: .relaxed)
        } catch let pending as FirebaseMFARequired {
            // Not an error to Firebase: the first step's answer, which the SDKs raise as one.
            return JSONResponse.make(.document(pending.body), mode: .relaxed)
        } catch let error as FirebaseError {
            AuditTrail.failed(String(error.message.prefix { $0 != " " }))
            return Self.error(error)
        } catch let error as ServiceError {
            AuditTrail.failed(error.code.rawValue)
            return Self.error(FirebaseError.from(error))
        }
    }

    static func error(_ error: FirebaseError) -> Response { error.response }
}
