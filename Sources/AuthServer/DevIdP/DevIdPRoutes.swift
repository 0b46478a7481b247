import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The dev identity provider's routes under `/dev/idp/` (dev mode only).
///
/// This file adds them all and serves the picture every identity shares; the `DevIdPRoutes+` files hold
/// the routes of each protocol, and the helpers at the end serve them.
extension AuthService {
    func addDevIdPRoutes(to router: Router<AuthRequestContext>, idp: DevIdentityProvider) {
        let root = router.group("dev/idp")
        // Scripts approve without a browser (JSON only, so a web page cannot post these).
        let scripted = root.group("api").add(middleware: DevRequestGuard(listenHost: listenHost, publicURL: publicURL))
        addDevIdPOAuthRoutes(to: root, scripted: scripted, idp: idp)
        addDevIdPGitHubRoutes(to: root, idp: idp)
        addDevIdPFacebookRoutes(to: root, idp: idp)
        addDevIdPOpenIDConnectRoutes(to: root, idp: idp)

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

        addDevIdPDeviceRoutes(to: root, scripted: scripted, idp: idp)
    }

    /// The identity a form names: an existing one (`identity=EMAIL`), a new one (`email`,
    /// `name`, `verified`), or nil for `decision=deny`.
    static func identity(_ form: [(String, String)], idp: DevIdentityProvider) throws(ServiceError) -> DevIdentityProvider.Identity? {
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
    static func identity(_ body: RequestBody, deny: Bool) throws(ServiceError) -> DevIdentityProvider.Identity? {
        if deny { return nil }
        guard case .document(let d)? = body.document["identity"], case .string(let email)? = d["email"] else {
            throw ServiceError(.missingParameter, "missing parameter 'identity' ({email=, name=, verified=})")
        }
        return .init(email: email, name: d["name"]?.stringValue ?? "", verified: d["verified"]?.boolValue ?? true)
    }

    static func bearerGrant(
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
