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
    let idp: FirebaseIdpSignIn
    let secondFactors: FirebaseSecondFactors
    /// Where the links of mails point when the app names no page.
    let origin: PublicOrigin

    /// The methods of `accounts:` this server answers; any other is Google's 404.
    static let methods = [
        "signUp", "signInWithPassword", "signInWithCustomToken", "signInWithIdp", "lookup", "update", "delete", "sendOobCode",
        "resetPassword", "createAuthUri", "signInWithEmailLink",
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
                if body.document["providerId"] != nil {
                    throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "createAuthUri for a provider's redirect is not built yet")
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
                if body.document["idToken"] != nil {
                    throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "linking an email link to a signed-in user is not built yet")
                }
                let signedIn = try await actions.signInWithEmailLink(
                    email: try Self.string(body, "email", missing: "MISSING_EMAIL"),
                    code: try Self.string(body, "oobCode", missing: "MISSING_OOB_CODE"), project: project, address: context.clientAddress)
                var answer = Self.tokens(signedIn, kind: "EmailLinkSigninResponse")
                answer["isNewUser"] = .bool(signedIn.isNew)
                return answer
            case "signInWithIdp":
                return try await signInWithIdp(body, project: project, address: context.clientAddress)
            case "sendOobCode":
                let type = try FirebaseActions.RequestType(kind: try Self.string(body, "requestType", missing: "MISSING_REQ_TYPE"))
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
                let (user, movedFrom) = try await accounts.update(
                    idToken: try Self.string(body, "idToken", missing: "INVALID_ID_TOKEN"), try Self.update(body), project: project,
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
                return ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [.document(FirebaseUserInfo.describe(user))]]
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
            answer = user.map { FirebaseUserInfo.describe($0) } ?? [:]
            answer["email"] = .string(email)
        } else if let changed = try await emailChange.apply(code, project: project, links: links(request)) {
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

    /// `accounts:signInWithIdp` (``FirebaseIdpSignIn``): Firebase's `VerifyAssertionResponse`,
    /// with the tokens, or with `needConfirmation` and the `pendingToken` that links the
    /// credential later. With `returnIdpCredential` (the JS SDK always sets it), a link's
    /// refusal comes as `errorMessage` beside the credential, as Firebase gives it.
    private func signInWithIdp(_ body: InputFields, project: FirebaseProjects.Project, address: String) async throws -> EJSONDocument {
        let postBody = try Self.optionalString(body, "postBody")
        let credential = try postBody.map { text throws(FirebaseError) in try FirebaseIdpSignIn.Credential(postBody: text) }
        let pendingToken = try Self.optionalString(body, "pendingToken")
        guard credential != nil || pendingToken != nil else { throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "postBody is missing") }
        let answer: FirebaseIdpSignIn.Answer
        do {
            answer = try await idp.signIn(
                credential, pendingToken: pendingToken, idToken: try Self.optionalString(body, "idToken"), project: project, address: address)
        } catch let error as FirebaseError where error.message.hasPrefix("FEDERATED_USER_ID_ALREADY_LINKED") {
            guard body.document["returnIdpCredential"] == true, let credential else { throw error }
            var refused: EJSONDocument = [
                "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(credential.providerId),
                "errorMessage": .string(error.message),
            ]
            if let token = credential.idToken { refused["oauthIdToken"] = .string(token) }
            if let token = credential.accessToken { refused["oauthAccessToken"] = .string(token) }
            return refused
        }
        var d: EJSONDocument = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(answer.providerId),
            "federatedId": .string(answer.providerId == "google.com" ? "https://accounts.google.com/" + answer.rawId : answer.rawId),
            "emailVerified": .bool(answer.emailVerified),
        ]
        if let email = answer.email { d["email"] = .string(email) }
        if let name = answer.profile["name"]?.stringValue { d["displayName"] = .string(name) }
        if let url = answer.profile["picture_url"]?.stringValue { d["photoUrl"] = .string(url) }
        if let token = answer.oauthIdToken { d["oauthIdToken"] = .string(token) }
        if let token = answer.oauthAccessToken { d["oauthAccessToken"] = .string(token) }
        if let (pending, providers) = answer.needConfirmation {
            d["needConfirmation"] = true
            d["pendingToken"] = .string(pending)
            d["verifiedProvider"] = .array(providers.map(EJSON.string))
            return d
        }
        guard let signedIn = answer.signedIn else { throw FirebaseError.invalid("INVALID_IDP_RESPONSE") }
        for (key, value) in Self.tokens(signedIn, kind: "VerifyAssertionResponse") where key != "email" || d["email"] == nil {
            d[key] = value
        }
        d["isNewUser"] = .bool(signedIn.isNew)
        return d
    }

    /// The v2 API's second factors (``FirebaseSecondFactors``), TOTP only:
    /// `mfaEnrollment:start|finalize|withdraw`, `mfaSignIn:finalize`.
    @Sendable func mfa(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await Self.answering {
            let method = context.parameters.get("method") ?? ""
            let methods = ["mfaEnrollment:start", "mfaEnrollment:finalize", "mfaEnrollment:withdraw", "mfaSignIn:start", "mfaSignIn:finalize"]
            guard methods.contains(method) else { throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound") }
            let project = try projects.project(apiKey: Self.apiKey(request))
            let body = try await InputFields.read(request, context: context)
            if body.document["phoneEnrollmentInfo"] != nil || body.document["phoneSignInInfo"] != nil
                || body.document["phoneVerificationInfo"] != nil || method == "mfaSignIn:start"
            {
                throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "phone second factors are not built: TOTP is")
            }
            let code = body.document["totpVerificationInfo"]?["verificationCode"]?.stringValue ?? ""
            func tokens(_ s: FirebaseAccounts.SignedIn) -> EJSONDocument { ["idToken": .string(s.idToken), "refreshToken": .string(s.refreshToken)] }
            switch method {
            case "mfaEnrollment:start":
                guard body.document["totpEnrollmentInfo"] != nil else {
                    throw FirebaseError.invalid("INVALID_ARGUMENT", "totpEnrollmentInfo is missing")
                }
                return try await secondFactors.startTOTP(idToken: try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN"), project: project)
            case "mfaEnrollment:finalize":
                let (signedIn, codes) = try await secondFactors.finalizeTOTP(
                    idToken: try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN"), code: code, project: project)
                var answer = tokens(signedIn)
                answer["recoveryCodes"] = codes
                return answer
            case "mfaEnrollment:withdraw":
                return tokens(
                    try await secondFactors.withdraw(
                        idToken: try Self.string(body, "idToken", missing: "MISSING_ID_TOKEN"),
                        enrollmentId: try Self.string(body, "mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID"), project: project))
            default:
                return tokens(
                    try await secondFactors.finishSignIn(
                        pendingCredential: try Self.string(body, "mfaPendingCredential", missing: "MISSING_CREDENTIAL"),
                        enrollmentId: try Self.optionalString(body, "mfaEnrollmentId"), code: code, project: project,
                        address: context.clientAddress))
            }
        }
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
    static func answering(_ body: () async throws -> EJSONDocument) async throws -> Response {
        do {
            return JSONResponse.make(.document(try await body()), mode: .relaxed)
        } catch let pending as FirebaseMFARequired {
            // Not an error to Firebase: the first step's answer, which the SDKs raise as one.
            return JSONResponse.make(.document(pending.body), mode: .relaxed)
        } catch let error as FirebaseError {
            return Self.error(error)
        } catch let error as ServiceError {
            return Self.error(FirebaseError.from(error))
        }
    }

    static func error(_ error: FirebaseError) -> Response { error.response }
}
