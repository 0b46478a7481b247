// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol

/// The dev API of docs/protocol/server-contract.md section 3 (outbox, config, clock, wipe) for
/// one app. Only a server in dev mode answers it; any other gets `ServerNotInDevMode`.
struct DevAPI: Sendable {
    let server: ScriptServer
    let appId: String
    var requestTimeout: Duration = .seconds(60)
    /// Set when the app speaks Firebase Auth's API: the outbox is then the emulator's
    /// `oobCodes` of this project, which authsh serves too.
    var firebaseProject: String? = nil

    /// Messages the server "sent", newest last; `email` and `kind` filter.
    func outbox(email: String?, kind: String?) async throws -> EJSON {
        if let firebaseProject {
            let project = "/emulator/v1/projects/\(FormEncoding.escape(firebaseProject))"
            let codes = try await send("GET", project + "/oobCodes", root: "")
            let texts = kind == nil || kind == "sms" ? try await send("GET", project + "/verificationCodes", root: "") : [:]
            return Self.mails(oobCodes: codes, verificationCodes: texts, email: email, kind: kind)
        }
        var query: [(String, String)] = []
        if let email { query.append(("email", email)) }
        if let kind { query.append(("kind", kind)) }
        let path = "/apps/\(FormEncoding.escape(appId))/outbox" + (query.isEmpty ? "" : "?" + FormEncoding.encode(query))
        return try await send("GET", path)
    }

    /// The app's config, after applying `patch` (an RFC 7396 merge patch) when there is one.
    func config(patch: EJSONDocument?) async throws -> EJSON {
        let path = "/apps/\(FormEncoding.escape(appId))/config"
        if let patch { return try await send("PATCH", path, body: .document(patch)) }
        return try await send("GET", path)
    }

    /// Moves the server's clock forward; returns its new time (Unix seconds).
    func advanceClock(seconds: Int64) async throws -> EJSON {
        try await send("POST", "/clock", body: ["advanceSeconds": .int64(seconds)])
    }

    /// Deletes every user of the app (and empties nothing else).
    func wipeUsers() async throws {
        _ = try await send("DELETE", "/apps/\(FormEncoding.escape(appId))/users")
    }

    /// The app's recent trigger runs, newest first; `state` filters.
    func triggerRuns(state: String?, limit: Int?) async throws -> EJSON {
        var query: [(String, String)] = []
        if let state { query.append(("state", state)) }
        if let limit { query.append(("limit", String(limit))) }
        let path = "/apps/\(FormEncoding.escape(appId))/triggers" + (query.isEmpty ? "" : "?" + FormEncoding.encode(query))
        return try await send("GET", path)
    }

    /// Waits until none of the app's trigger runs is queued, for up to `seconds`; returns how
    /// many still are.
    func waitForTriggers(seconds: Int64) async throws -> Int64 {
        var api = self
        api.requestTimeout = .seconds(seconds + 30)
        let answer = try await api.send("POST", "/apps/\(FormEncoding.escape(appId))/triggers/wait", body: ["timeoutSeconds": .int64(seconds)])
        return answer["pending"]?.integerValue ?? 0
    }

    /// What the dev server's webhook sink received for the app, oldest first.
    func webhooks() async throws -> EJSON {
        try await send("GET", "/apps/\(FormEncoding.escape(appId))/webhooks")
    }

    /// Runs plugin function `name` as a unit test; `request` holds its `arguments` and what the
    /// call finds (`user`, `values`, `now`, `store`, `http`). Returns what it did.
    func runPlugin(_ request: EJSONDocument) async throws -> EJSON {
        try await send("POST", "/apps/\(FormEncoding.escape(appId))/plugins/run", body: .document(request))
    }

    /// The URL of the app's webhook sink, for a plugin's `context.http.post`: on the server's
    /// real origin (the embedded server's `http://127.0.0.1:PORT`, started if need be).
    func webhookURL() async throws -> String {
        try await server.origin() + Routes.dev + "/apps/\(FormEncoding.escape(appId))/webhooks"
    }

    /// A scripted request to the dev identity provider (`/dev/idp/api/...`).
    func idp(_ path: String, body: EJSON) async throws -> EJSON {
        try await send("POST", "/dev/idp/api" + path, body: body, root: "")
    }

    /// The Auth emulator's `oobCodes` (`{email, oobCode, oobLink, requestType}`) as mails:
    /// `to`, `kind` (`confirm`, `reset`, `signin`, `changeemail`, `recoveremail`), `token` the
    /// `oobCode` (with an empty `tokenId`, so `confirm(mail)` and `resetPassword` take it),
    /// `link` the `oobLink`, and `requestType`; `kind` filters by either name. Then its
    /// `verificationCodes` (`{phoneNumber, sessionInfo, code}`) as authsh's outbox keeps texts:
    /// kind `sms`, `to` the number, `token` the code; `email` filters them by number.
    static func mails(oobCodes reply: EJSON, verificationCodes texts: EJSON = [:], email: String?, kind: String?) -> EJSON {
        let kinds = [
            "VERIFY_EMAIL": "confirm", "PASSWORD_RESET": "reset", "EMAIL_SIGNIN": "signin", "VERIFY_AND_CHANGE_EMAIL": "changeemail",
            "RECOVER_EMAIL": "recoveremail",
        ]
        let mails: [EJSON] = (reply["oobCodes"]?.arrayValue ?? []).compactMap { code in
            let type = code["requestType"]?.stringValue ?? ""
            let mailKind = kinds[type] ?? type.lowercased()
            // The emulator lists an email change under the account's email, the address mailed
            // in `newEmail`; authsh under the address mailed.
            let to = code["newEmail"]?.stringValue ?? code["email"]?.stringValue ?? ""
            let about = [to, code["email"]?.stringValue ?? ""].map { $0.lowercased() }
            guard email.map({ about.contains($0.lowercased()) }) ?? true, kind == nil || kind == mailKind || kind == type else {
                return nil
            }
            return [
                "to": .string(to), "subject": "", "body": "", "kind": .string(mailKind), "sentAt": 0,
                "token": code["oobCode"] ?? "", "tokenId": "", "link": code["oobLink"] ?? "", "requestType": .string(type),
            ]
        }
        let sms: [EJSON] = (texts["verificationCodes"]?.arrayValue ?? []).compactMap { text in
            let to = text["phoneNumber"]?.stringValue ?? ""
            guard email == nil || to == email else { return nil }
            return [
                "to": .string(to), "subject": "", "body": "", "kind": "sms", "sentAt": 0, "token": text["code"] ?? "", "tokenId": "",
                "link": "",
            ]
        }
        return .array(mails + sms)
    }

    private func send(_ method: String, _ path: String, body: EJSON? = nil, root: String = Routes.dev) async throws -> EJSON {
        var headers = [("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = TransportRequest(
            method: method, url: server.baseURL + root + path, headers: headers,
            body: body?.encoded(.canonical), timeout: requestTimeout)
        let response = try await ScriptTransport(server: server).send(request)
        let parsed = response.body.isEmpty ? EJSON.document([:]) : (try? EJSON(parsing: response.body))
        if (200..<300).contains(response.status), let parsed { return parsed }
        let error = parsed.flatMap { ServiceError(body: $0, status: response.status) }
        if response.status == 404, error?.code != .appNotFound, error?.code != .functionNotFound {
            throw AuthClientError(
                code: ScriptError.notInDevMode,
                message: "\(server.isEmbedded ? "the embedded server" : server.baseURL) is not in dev mode"
                    + " (the dev API, outbox included, needs a server started with --dev)",
                status: 404)
        }
        var failure =
            error.map(AuthClientError.init)
            ?? AuthClientError(
                code: AuthClientError.malformedResponse,
                message: "\(server.baseURL) answered \(response.status) without an error body", status: response.status)
        failure.request = AuthClientError.requestLine(method, request.url)
        throw failure
    }

}
