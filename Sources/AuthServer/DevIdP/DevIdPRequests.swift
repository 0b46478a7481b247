// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// What the dev identity provider's routes read from requests and how they answer pages.
enum DevIdPRequests {
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
    static func identity(_ body: InputFields, deny: Bool) throws(ServiceError) -> DevIdentityProvider.Identity? {
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
