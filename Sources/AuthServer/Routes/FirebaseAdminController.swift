// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Hummingbird

/// The Firebase Admin API's user management, at the paths the Auth emulator serves it (the
/// Admin SDKs' `FIREBASE_AUTH_EMULATOR_HOST`): under
/// `/identitytoolkit.googleapis.com/v1/projects/PROJECT/`, POST `accounts` (create) and
/// `accounts:lookup|update|delete|batchCreate|batchDelete|query`, GET `accounts:batchGet`.
/// Behind ``FirebaseAdminAuthMiddleware``; the rules are ``FirebaseAdmin``'s.
struct FirebaseAdminController {
    let projects: FirebaseProjects
    let admin: FirebaseAdmin
    let keys: AdminKeys
    let channel: AdminChannel
    let origin: PublicOrigin
    let dev: Bool

    static let base = "/identitytoolkit.googleapis.com/v1/projects/:project"
    /// The POST methods answered; any other is Google's 404.
    static let methods = [
        "accounts:lookup", "accounts:update", "accounts:delete", "accounts:batchCreate", "accounts:batchDelete", "accounts:query",
        "accounts:sendOobCode",
    ]
    /// The most users one `batchCreate` and one `batchDelete` take (Firebase's).
    static let batchLimit = 1000

    func addRoutes(to router: Router<AuthRequestContext>) {
        var group = router.group(RouterPath(Self.base))
        if dev { group = group.add(middleware: DevRequestGuard(listenHost: origin.listenHost, publicURL: origin.publicURL)) }
        group = group.add(middleware: FirebaseAdminAuthMiddleware(keys: keys, channel: channel, dev: dev))
        group.post(use: projectMethod)
        group.post("accounts", use: create)
        group.post(":method", use: post)
        group.get(":method", use: get)
    }

    /// The path's project, once the caller is known (an unknown caller learns nothing of which
    /// projects exist).
    private func project(_ context: AuthRequestContext) throws(FirebaseError) -> FirebaseProjects.Project {
        try projects.named(context.parameters.get("project"))
    }

    /// `POST projects/PROJECT:METHOD`: `createSessionCookie` (`idToken`, `validDuration` in
    /// seconds, 5 minutes to 14 days, 14 days when absent): `{sessionCookie}`.
    @Sendable func projectMethod(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await FirebaseController.answering {
            let named = context.parameters.get("project") ?? ""
            guard let colon = named.lastIndex(of: ":"), named[named.index(after: colon)...] == "createSessionCookie" else {
                throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound")
            }
            let project = try projects.named(String(named[..<colon]))
            let body = try await InputFields.read(request, context: context)
            let idToken = try FirebaseController.string(body, "idToken", missing: "MISSING_ID_TOKEN")
            let lifetime = Int64(try Self.number(body, "validDuration") ?? Int(FirebaseIDTokens.sessionCookieLifetimes.upperBound))
            guard FirebaseIDTokens.sessionCookieLifetimes.contains(lifetime) else { throw FirebaseError.invalid("INVALID_DURATION") }
            return ["sessionCookie": .string(try await admin.sessionCookie(idToken: idToken, lifetime: lifetime, project: project))]
        }
    }

    @Sendable func create(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await FirebaseController.answering {
            let project = try project(context)
            let body = try await InputFields.read(request, context: context)
            var new = FirebaseAdmin.NewUser()
            new.phoneNumber = try FirebaseController.optionalString(body, "phoneNumber")
            new.localId = try FirebaseController.optionalString(body, "localId")
            if let id = new.localId, !FirebaseIdentities.isValidUid(id) { throw FirebaseError.invalid("INVALID_LOCAL_ID") }
            new.email = try FirebaseController.optionalString(body, "email")
            new.password = try FirebaseController.optionalString(body, "password")
            new.displayName = try FirebaseController.optionalString(body, "displayName")
            new.photoUrl = try FirebaseController.optionalString(body, "photoUrl")
            new.emailVerified = try Self.flag(body, "emailVerified") ?? false
            new.disabled = try Self.flag(body, "disabled") ?? false
            let user = try await admin.create(new, project: project, by: AdminActor(request, context))
            var answer: EJSONDocument = ["kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(user.id)]
            if let email = new.email { answer["email"] = .string(email) }
            return answer
        }
    }

    @Sendable func post(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await FirebaseController.answering {
            let method = context.parameters.get("method") ?? ""
            guard Self.methods.contains(method) else {
                throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound")
            }
            let project = try project(context)
            let body = try await InputFields.read(request, context: context)
            let actor = AdminActor(request, context)
            switch method {
            case "accounts:lookup":
                var federated: [(providerId: String, rawId: String)] = []
                for item in try Self.documents(body, "federatedUserId") {
                    guard let provider = item["providerId"]?.stringValue, let raw = item["rawId"]?.stringValue else { continue }
                    federated.append((provider, raw))
                }
                let users = try await admin.lookup(
                    localIds: try Self.strings(body, "localId", atMost: 100), emails: try Self.strings(body, "email", atMost: 100),
                    phoneNumbers: try Self.strings(body, "phoneNumber", atMost: 100), federated: federated, project: project)
                var answer: EJSONDocument = ["kind": "identitytoolkit#GetAccountInfoResponse"]
                // No `users` when none is found, as Firebase answers (the Node Admin SDK relies on it).
                if !users.isEmpty { answer["users"] = .array(users.map { .document(FirebaseUserInfo.describe($0.user, admin: $0.admin)) }) }
                return answer
            case "accounts:update":
                let (user, fields) = try await admin.update(
                    localId: try FirebaseController.string(body, "localId", missing: "MISSING_LOCAL_ID"), try Self.change(body),
                    project: project, by: actor)
                var answer = FirebaseUserInfo.describe(user, admin: fields)
                answer["kind"] = "identitytoolkit#SetAccountInfoResponse"
                return answer
            case "accounts:delete":
                try await admin.delete(
                    localId: try FirebaseController.string(body, "localId", missing: "MISSING_LOCAL_ID"), project: project, by: actor)
                return ["kind": "identitytoolkit#DeleteAccountResponse"]
            case "accounts:batchDelete":
                let ids = try Self.strings(body, "localIds", atMost: Self.batchLimit)
                guard !ids.isEmpty else { throw FirebaseError.invalid("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
                let refused = try await admin.batchDelete(
                    localIds: ids, force: try Self.flag(body, "force") ?? false, project: project, by: actor)
                guard !refused.isEmpty else { return [:] }
                return [
                    "errors": .array(
                        refused.map { ["index": .int64(Int64($0.index)), "localId": .string($0.localId), "message": .string($0.message)] })
                ]
            case "accounts:batchCreate":
                let users = try Self.array(body, "users", atMost: Self.batchLimit)
                guard !users.isEmpty else { throw FirebaseError.invalid("MISSING_USER_ACCOUNT") }
                let importing = try FirebaseImport(body.document, app: project.app, now: admin.clock.now)
                let refused = try await admin.batchCreate(users, importing: importing, project: project, by: actor)
                return [
                    "kind": "identitytoolkit#UploadAccountResponse",
                    "error": .array(refused.map { ["index": .int64(Int64($0.index)), "message": .string($0.message)] }),
                ]
            case "accounts:sendOobCode":
                return try await sendOobCode(body, project: project, request: request, context: context)
            default:
                return try await query(body, project: project)
            }
        }
    }

    /// `accounts:query`: every user by id, ascending (`limit` up to 500, `offset`), or only
    /// their count with `returnUserInfo: false`. With `expression`, as Firebase has it, the
    /// first `SqlExpression` alone: the users whose `userId`, `email` and `phoneNumber` are
    /// those it gives (each one it gives). Other orders are not built.
    private func query(_ body: InputFields, project: FirebaseProjects.Project) async throws -> EJSONDocument {
        if try Self.flag(body, "returnUserInfo") == false {
            return ["recordsCount": .string(String(try await admin.count(project: project)))]
        }
        if let first = try Self.array(body, "expression", atMost: 100).first {
            return try await matching(first, project: project)
        }
        let sortBy = try FirebaseController.optionalString(body, "sortBy") ?? "USER_ID"
        let order = try FirebaseController.optionalString(body, "order") ?? "ASC"
        guard ["USER_ID", "SORT_BY_FIELD_UNSPECIFIED"].contains(sortBy), ["ASC", "ORDER_UNSPECIFIED"].contains(order) else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "only sortBy USER_ID, order ASC is built")
        }
        let limit = try Self.number(body, "limit") ?? 500
        let offset = try Self.number(body, "offset") ?? 0
        guard (1...500).contains(limit), (0...100_000).contains(offset) else {
            throw FirebaseError.invalid("INVALID_ARGUMENT", "limit must be 1 to 500 and offset 0 to 100000")
        }
        // The offset is walked by pages of ids: O(offset), bounded above.
        var token: String?
        var skipped = 0
        while skipped < offset {
            let page = try await admin.page(after: token, limit: min(1000, offset - skipped), project: project)
            skipped += page.users.count
            token = page.users.last?.user.id
            if page.next == nil { return ["recordsCount": "0"] }
        }
        let page = try await admin.page(after: token, limit: limit, project: project)
        return [
            "recordsCount": .string(String(page.users.count)),
            "userInfo": .array(page.users.map { .document(FirebaseUserInfo.describe($0.user, admin: $0.admin)) }),
        ]
    }

    /// The users an `accounts:query` `SqlExpression` names: each field it gives must match.
    private func matching(_ expression: EJSON, project: FirebaseProjects.Project) async throws -> EJSONDocument {
        guard case .document(let d) = expression, d.allSatisfy({ ["userId", "email", "phoneNumber"].contains($0.0) }) else {
            throw FirebaseError.invalid("INVALID_ARGUMENT", "an expression is an object of userId, email and phoneNumber")
        }
        func field(_ key: String) throws(FirebaseError) -> String? {
            guard let value = d[key], value != .null else { return nil }
            guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= 256 else {
                throw FirebaseError.invalid("INVALID_ARGUMENT", "expression's \(key) must be a string of 1 to 256 bytes")
            }
            return text
        }
        let id = try field("userId"), email = try field("email"), phone = try field("phoneNumber")
        guard id != nil || email != nil || phone != nil else {
            throw FirebaseError.invalid("INVALID_ARGUMENT", "an expression gives userId, email or phoneNumber")
        }
        let found = try await admin.lookup(
            localIds: id.map { [$0] } ?? [], emails: email.map { [$0] } ?? [], phoneNumbers: phone.map { [$0] } ?? [], federated: [],
            project: project)
        let users = found.map { FirebaseUserInfo.describe($0.user, admin: $0.admin) }.filter { user in
            (id == nil || user["localId"]?.stringValue == id)
                && (email == nil || user["email"]?.stringValue?.lowercased() == email?.lowercased())
                && (phone == nil || user["phoneNumber"]?.stringValue == phone)
        }
        return ["recordsCount": .string(String(users.count)), "userInfo": .array(users.map(EJSON.document))]
    }

    /// `accounts:sendOobCode`: with `returnOobLink`, the action link of `email`'s account
    /// (the Admin SDKs' `generate_password_reset_link`, `generate_email_verification_link`),
    /// no mail sent; without, the mail.
    private func sendOobCode(
        _ body: InputFields, project: FirebaseProjects.Project, request: Request, context: AuthRequestContext
    ) async throws -> EJSONDocument {
        let type = try FirebaseActions.RequestType(kind: try FirebaseController.string(body, "requestType", missing: "MISSING_REQ_TYPE"))
        let email = try FirebaseController.string(body, "email", missing: "MISSING_EMAIL")
        let continueUrl = try FirebaseController.optionalString(body, "continueUrl")
        if type == .verifyAndChangeEmail {
            guard try Self.flag(body, "returnOobLink") == true else {
                throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "an administrator's VERIFY_AND_CHANGE_EMAIL takes returnOobLink: true")
            }
            let (code, link) = try await FirebaseEmailChange(actions: admin.actions).makeLink(
                email: email, newEmail: try FirebaseController.optionalString(body, "newEmail"), continueUrl: continueUrl, project: project,
                origin: origin.mailLinks(request))
            return [
                "kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email), "oobLink": .string(link), "oobCode": .string(code),
            ]
        }
        if try Self.flag(body, "returnOobLink") == true {
            let (code, link) = try await admin.actions.makeLink(
                type, email: email, continueUrl: continueUrl, project: project, origin: origin.mailLinks(request))
            return [
                "kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email), "oobLink": .string(link), "oobCode": .string(code),
            ]
        }
        _ = try await admin.actions.send(
            type, email: email, idToken: nil, continueUrl: continueUrl, project: project, apiKey: project.app.config.firebase?.apiKeys.first,
            origin: origin.mailLinks(request), address: context.clientAddress, byAdmin: true)
        return ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)]
    }

    /// GET `accounts:batchGet?maxResults=&nextPageToken=`: a page of users by id.
    @Sendable func get(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await FirebaseController.answering {
            guard context.parameters.get("method") == "accounts:batchGet" else {
                throw FirebaseError(404, "Method not found.", status: "NOT_FOUND", reason: "notFound")
            }
            let project = try project(context)
            let query = request.uri.queryParameters
            let limit = query.get("maxResults").map { Int($0) } ?? 20
            guard let limit, (1...1000).contains(limit) else { throw FirebaseError.invalid("INVALID_ARGUMENT", "maxResults must be 1 to 1000") }
            let page = try await admin.page(after: query.get("nextPageToken"), limit: limit, project: project)
            var answer: EJSONDocument = [
                "kind": "identitytoolkit#DownloadAccountResponse",
                "users": .array(page.users.map { .document(FirebaseUserInfo.describe($0.user, admin: $0.admin)) }),
            ]
            if let next = page.next { answer["nextPageToken"] = .string(next) }
            return answer
        }
    }

    // MARK: decoding

    /// The changes of an Admin API `accounts:update`.
    static func change(_ body: InputFields) throws(FirebaseError) -> FirebaseAdmin.Change {
        var change = FirebaseAdmin.Change(profile: try FirebaseController.update(body))
        change.phoneNumber = try FirebaseController.optionalString(body, "phoneNumber")
        change.emailVerified = try flag(body, "emailVerified")
        change.disabled = try flag(body, "disableUser")
        change.customAttributes = try FirebaseController.optionalString(body, "customAttributes")
        change.validSince = try number(body, "validSince").map(Int64.init)
        return change
    }

    static func flag(_ body: InputFields, _ key: String) throws(FirebaseError) -> Bool? {
        guard let value = body.document[key], value != .null else { return nil }
        guard case .bool(let b) = value else { throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must be true or false") }
        return b
    }

    /// An integer sent as a number or as a string of digits (Google's int64 fields).
    static func number(_ body: InputFields, _ key: String) throws(FirebaseError) -> Int? {
        guard let value = body.document[key], value != .null else { return nil }
        guard let n = value.integerValue ?? value.stringValue.flatMap({ Int64($0) }), let int = Int(exactly: n), int >= 0 else {
            throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must be a non-negative integer")
        }
        return int
    }

    static func array(_ body: InputFields, _ key: String, atMost limit: Int) throws(FirebaseError) -> [EJSON] {
        do { return try body.array(key, atMost: limit) } catch { throw FirebaseError.invalid("INVALID_ARGUMENT", error.message) }
    }

    static func strings(_ body: InputFields, _ key: String, atMost limit: Int) throws(FirebaseError) -> [String] {
        try array(body, key, atMost: limit).map { item throws(FirebaseError) in
            guard let text = item.stringValue else { throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must hold strings") }
            return text
        }
    }

    static func documents(_ body: InputFields, _ key: String) throws(FirebaseError) -> [EJSONDocument] {
        try array(body, key, atMost: 100).map { item throws(FirebaseError) in
            guard case .document(let d) = item else { throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must hold objects") }
            return d
        }
    }
}
