import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The dev identity provider's routes under `/dev/idp/` (dev mode only).
extension AuthService {
    func addDevIdPRoutes(to router: Router<AuthRequestContext>, idp: DevIdentityProvider) {
        let root = router.group("dev/idp")
        for flavor in DevIdentityProvider.Flavor.allCases {
            let group = root.group(RouterPath(flavor.rawValue))
            let (authorize, token, device) =
                switch flavor {
                case .github: ("login/oauth/authorize", "login/oauth/access_token", "login/device/code")
                case .oidc: ("authorize", "token", "device")
                case .facebook: ("dialog/oauth", "oauth/access_token", "device/login")
                }
            group.get(RouterPath(authorize)) { request, _ in
                let (formToken, grant) = try idp.startAuthorization(flavor, query: Self.query(request))
                return Self.html(
                    DevIdPPages.authorize(
                        flavor: flavor, token: formToken, grant: grant,
                        identities: idp.identities, action: flavor.path + "/" + authorize))
            }
            group.post(RouterPath(authorize)) { request, context in
                let form = try await Self.form(request, context)
                let redirect = try idp.decide(
                    page: FormEncoding.value("request", in: form) ?? "",
                    identity: try Self.identity(form, idp: idp))
                return Response(status: .found, headers: [.location: redirect, .cacheControl: "no-store"])
            }
            group.post(RouterPath(token)) { request, context in
                let form = try await Self.form(request, context)
                do {
                    return JSONResponse.make(try await idp.token(flavor, form: form, basic: Self.basic(request)), mode: .relaxed)
                } catch let error as DevIdentityProvider.TokenError {
                    let body: EJSON = ["error": .string(error.error), "error_description": .string(error.description)]
                    // GitHub answers token errors with 200; OAuth 2.0 servers with 400 (401 for the client).
                    let status: HTTPResponse.Status = flavor == .github ? .ok : error.error == "invalid_client" ? .unauthorized : .badRequest
                    return JSONResponse.make(body, status: status, mode: .relaxed)
                }
            }
            group.post(RouterPath(device)) { request, context in
                let form = try await Self.form(request, context)
                let verification = try self.origin.resolve("/dev/idp/device")
                do {
                    return JSONResponse.make(
                        try idp.startDevice(
                            flavor, clientId: FormEncoding.value("client_id", in: form),
                            scope: FormEncoding.value("scope", in: form),
                            verificationURI: verification), mode: .relaxed)
                } catch let error as DevIdentityProvider.TokenError {
                    return JSONResponse.make(
                        ["error": .string(error.error), "error_description": .string(error.description)],
                        status: .badRequest, mode: .relaxed)
                }
            }
        }

        // GitHub's REST API, the part sign-in uses.
        let api = root.group("github/api")
        api.get("user") { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .github)
            _ = grant
            return JSONResponse.make(
                [
                    "id": .int64(Int64(idp.subject(of: identity.email, flavor: .github)) ?? 0),
                    "login": .string(String(identity.email.split(separator: "@")[0])),
                    "name": .string(identity.name), "email": .null,
                    "avatar_url": .string(try self.origin.resolve("/dev/idp/avatar.svg")),
                ], mode: .relaxed)
        }
        api.get("user/emails") { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .github)
            guard grant.scope.split(whereSeparator: { $0 == " " || $0 == "," }).contains("user:email") else {
                throw ServiceError(.notFound, "Not Found (the token lacks the user:email scope)")
            }
            return JSONResponse.make(
                [
                    [
                        "email": .string(identity.email), "primary": true,
                        "verified": .bool(identity.verified), "visibility": "private",
                    ]
                ], mode: .relaxed)
        }
        api.post("applications/:client/token") { request, context in
            guard let (id, secret) = Self.basic(request), id == context.parameters.get("client"),
                let client = idp.clients[.github], id == client.id,
                Secrets.constantTimeEqual(Array(secret.utf8), Array(client.secret.utf8))
            else { throw ServiceError(.notFound, "Not Found") }
            let body = try await RequestBody.read(request, context: context)
            guard let grant = idp.grant(ofAccessToken: try body.string("access_token")), grant.flavor == .github,
                grant.clientId == id
            else { throw ServiceError(.notFound, "Not Found") }
            return JSONResponse.make(["scopes": .array(grant.scope.split(separator: " ").map { .string(String($0)) })], mode: .relaxed)
        }

        // Facebook's Graph API, the part sign-in uses: is a token this app's, and whose.
        let graph = root.group("facebook")
        graph.get("debug_token") { request, _ in
            let query = Self.query(request)
            let app = FormEncoding.value("access_token", in: query) ?? ""
            guard let client = idp.clients[.facebook], app == client.id + "|" + client.secret else {
                throw ServiceError(.invalidSession, "Invalid OAuth access token (the app token)", status: 400)
            }
            let input = FormEncoding.value("input_token", in: query) ?? ""
            guard let grant = idp.grant(ofAccessToken: input), grant.flavor == .facebook, let identity = grant.identity else {
                return JSONResponse.make(["data": ["is_valid": false]], mode: .relaxed)
            }
            return JSONResponse.make(
                [
                    "data": [
                        "app_id": .string(grant.clientId), "is_valid": true, "type": "USER",
                        "user_id": .string(idp.subject(of: identity.email, flavor: .facebook)),
                    ]
                ], mode: .relaxed)
        }
        graph.get("me") { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .facebook)
            var me: EJSONDocument = [
                "id": .string(idp.subject(of: identity.email, flavor: .facebook)), "name": .string(identity.name),
                "picture": ["data": ["url": .string(try self.origin.resolve("/dev/idp/avatar.svg"))]],
            ]
            // Facebook gives the email only with the email permission, and only a confirmed one.
            if identity.verified, grant.scope.split(whereSeparator: { $0 == " " || $0 == "," }).contains("email") {
                me["email"] = .string(identity.email)
            }
            return JSONResponse.make(.document(me), mode: .relaxed)
        }

        // The OpenID Connect issuer's metadata, keys and userinfo.
        let oidc = root.group("oidc")
        oidc.get(".well-known/openid-configuration") { _, _ in
            let issuer = try idp.issuer
            return JSONResponse.make(
                [
                    "issuer": .string(issuer),
                    "authorization_endpoint": .string(issuer + "/authorize"), "token_endpoint": .string(issuer + "/token"),
                    "userinfo_endpoint": .string(issuer + "/userinfo"), "jwks_uri": .string(issuer + "/jwks"),
                    "device_authorization_endpoint": .string(issuer + "/device"),
                    "response_types_supported": ["code"], "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
                    "scopes_supported": ["openid", "email", "profile"],
                    "grant_types_supported": ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"],
                    "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
                ], mode: .relaxed)
        }
        oidc.get("jwks") { _, _ in JSONResponse.make(try await idp.jwks, mode: .relaxed) }
        let userinfo: @Sendable (Request, AuthRequestContext) async throws -> Response = { request, _ in
            let (grant, identity) = try Self.bearerGrant(request, idp: idp, flavor: .oidc)
            return JSONResponse.make(.document(idp.claims(identity, scope: grant.scope)), mode: .relaxed)
        }
        oidc.get("userinfo", use: userinfo)
        oidc.post("userinfo", use: userinfo)

        // Every dev identity's picture (`avatar_url`, `picture_url`).
        root.get("avatar.svg") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string:
                            ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="#8b949e"/><circle cx="32" cy="25" r="11" fill="#fff"/><path d="M12 54a20 16 0 0 1 40 0z" fill="#fff"/></svg>"##
                    )))
        }

        // Device verification, in a browser or from a script.
        root.get("device") { request, _ in
            Self.html(DevIdPPages.device(userCode: request.uri.queryParameters.get("user_code").map { String($0) }, message: nil))
        }
        root.post("device") { request, context in
            let form = try await Self.form(request, context)
            let code = FormEncoding.value("user_code", in: form) ?? ""
            do {
                try idp.decideDevice(userCode: code, identity: try Self.identity(form, idp: idp))
            } catch let error as ServiceError {
                return Self.html(DevIdPPages.device(userCode: code, message: error.message), status: .badRequest)
            }
            let approved = FormEncoding.value("decision", in: form) != "deny"
            return Self.html(
                DevIdPPages.message(
                    approved ? "Device connected" : "Request denied",
                    approved ? "You can go back to your device." : "The device was not connected."))
        }

        // Scripts approve without a browser (JSON only, so a web page cannot post these).
        let scripted = root.group("api").add(middleware: DevRequestGuard(listenHost: listenHost, publicURL: publicURL))
        scripted.post("approve") { request, context in
            let body = try await RequestBody.read(request, context: context)
            let url = try body.string("url")
            guard let q = url.firstIndex(of: "?"), let query = FormEncoding.decode(url[url.index(after: q)...]) else {
                throw ServiceError(.invalidParameter, "parameter 'url' must be an authorize URL with its query")
            }
            let flavor: DevIdentityProvider.Flavor =
                url.contains("/dev/idp/github/")
                ? .github
                : url.contains("/dev/idp/facebook/") ? .facebook : .oidc
            let (formToken, _) = try idp.startAuthorization(flavor, query: query)
            let redirect = try idp.decide(page: formToken, identity: try Self.identity(body, deny: body.document["decision"] == "deny"))
            return JSONResponse.make(["redirect": .string(redirect)], mode: .relaxed)
        }
        scripted.post("device/approve") { request, context in
            let body = try await RequestBody.read(request, context: context)
            try idp.decideDevice(
                userCode: try body.string("userCode"),
                identity: try Self.identity(body, deny: body.document["decision"] == "deny"))
            return JSONResponse.empty
        }
    }

    /// The identity a form names: an existing one (`identity=EMAIL`), a new one (`email`,
    /// `name`, `verified`), or nil for `decision=deny`.
    private static func identity(_ form: [(String, String)], idp: DevIdentityProvider) throws(ServiceError) -> DevIdentityProvider.Identity? {
        if FormEncoding.value("decision", in: form) == "deny" { return nil }
        if let email = FormEncoding.value("identity", in: form) {
            guard let known = idp.identities.first(where: { $0.email == email }) else {
                throw ServiceError(.invalidParameter, "dev IdP: no identity \(email) yet")
            }
            return known
        }
        guard let email = FormEncoding.value("email", in: form), !email.isEmpty else {
            throw ServiceError(.missingParameter, "dev IdP: give an email, or pick an identity")
        }
        return .init(
            email: email, name: FormEncoding.value("name", in: form) ?? "",
            verified: FormEncoding.value("verified", in: form) == "true")
    }

    /// The identity of a JSON body's `identity` object (`verified` defaults to true).
    private static func identity(_ body: RequestBody, deny: Bool) throws(ServiceError) -> DevIdentityProvider.Identity? {
        if deny { return nil }
        guard case .document(let d)? = body.document["identity"], case .string(let email)? = d["email"] else {
            throw ServiceError(.missingParameter, "missing parameter 'identity' ({email=, name=, verified=})")
        }
        return .init(email: email, name: d["name"]?.stringValue ?? "", verified: d["verified"]?.boolValue ?? true)
    }

    private static func bearerGrant(
        _ request: Request, idp: DevIdentityProvider,
        flavor: DevIdentityProvider.Flavor
    ) throws(ServiceError) -> (DevIdentityProvider.Grant, DevIdentityProvider.Identity) {
        let header = request.headers[.authorization] ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : header.hasPrefix("token ") ? String(header.dropFirst(6)) : ""
        guard let grant = idp.grant(ofAccessToken: token), grant.flavor == flavor, let identity = grant.identity else {
            throw ServiceError(.invalidSession, "Bad credentials", status: 401)
        }
        return (grant, identity)
    }

    static func query(_ request: Request) -> [(String, String)] {
        request.uri.query.flatMap { FormEncoding.decode($0) } ?? []
    }

    /// A form body (`application/x-www-form-urlencoded`, at most 64 KiB); a JSON object body
    /// is taken too (GitHub accepts both), its string fields as form fields.
    static func form(_ request: Request, _ context: AuthRequestContext) async throws -> [(String, String)] {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: 65_536)
        } catch is NIOTooManyBytesError {
            throw ServiceError(.payloadTooLarge, "request body is larger than 64 KiB")
        }
        let text = String(buffer: buffer)
        if text.hasPrefix("{") {
            guard case .document(let d)? = try? EJSON(parsing: Array(text.utf8)) else {
                throw ServiceError(.badRequest, "request body is not valid JSON")
            }
            return d.compactMap { k, v in v.stringValue.map { (k, $0) } }
        }
        guard let fields = FormEncoding.decode(text) else { throw ServiceError(.badRequest, "request body is not a valid form") }
        return fields
    }

    /// HTTP Basic credentials (`client_id:client_secret`, each form-encoded as RFC 6749 says).
    static func basic(_ request: Request) -> (String, String)? {
        guard let header = request.headers[.authorization], header.hasPrefix("Basic "),
            let bytes = Base64.decode(String(header.dropFirst(6))), let text = String(validating: bytes, as: UTF8.self),
            let colon = text.firstIndex(of: ":"),
            let user = FormEncoding.decode("u=" + text[..<colon]).flatMap({ $0.first?.1 }),
            let password = FormEncoding.decode("p=" + text[text.index(after: colon)...]).flatMap({ $0.first?.1 })
        else { return nil }
        return (user, password)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                HTTPField.Name("X-Frame-Options")!: "DENY",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
