import AuthProtocol
import Hummingbird

/// The App Services client API (docs/protocol/wire-protocol.md section 2): its controllers,
/// and what they share.
extension AuthService {
    func addClientRoutes(to router: Router<AuthRequestContext>) {
        let app = router.group(RouterPath(Routes.base + "/app/:app")).add(middleware: AppMiddleware(apps: apps))
        AppController(service: self).addRoutes(to: app)
        UserpassController(service: self).addRoutes(to: app.group("auth/providers/local-userpass"))
        let auth = router.group(RouterPath(Routes.base + "/auth"))
        SessionController(service: self).addRoutes(to: auth)
        APIKeyController(service: self).addRoutes(to: auth.group("api_keys"))
    }

    /// The origin for links in mails: `publicURL`; without it, in dev mode on a loopback
    /// address, the loopback origin the client used; otherwise none (mails then carry the
    /// token and token id without a link). Never a `Host` header that names another machine:
    /// an attacker asking for a victim's reset would choose where the victim's link points.
    func origin(_ request: Request) -> String? {
        if let publicURL { return publicURL }
        guard outbox != nil, ServerConfiguration.isLoopback(host: listenHost),
            let authority = request.head.authority, ServerConfiguration.isLoopback(host: authority),
            authority.allSatisfy({ $0.isLetter || $0.isNumber || ":.[]".contains($0) })
        else { return nil }
        return "http://\(authority)"
    }

    /// The profile body: `{user_id, domain_id, type, identities, data}`.
    static func profile(_ user: UserRecord, app: AppRuntime) -> EJSON {
        [
            "user_id": .string(user.id), "domain_id": .string(app.id), "type": .string(user.type),
            "identities": .array(
                user.identities.map {
                    [
                        "id": .string($0.externalId), "provider_type": .string($0.providerType),
                        "provider_id": .string($0.providerId), "provider_data": .document($0.data),
                    ]
                }),
            "data": .document(user.data),
        ]
    }
}
