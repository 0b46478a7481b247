// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The dev identity provider's routes under `/dev/idp/` (dev mode only): one controller per
/// protocol (each flavour's OAuth endpoints, GitHub's API, Facebook's Graph API, the OpenID
/// Connect issuer, device verification, and scripts' approvals), and the picture every
/// identity shares. They hold the provider and this server's origin, nothing else.
struct DevIdPController {
    let idp: DevIdentityProvider
    let origin: ServerOrigin
    /// For the guard of the scripted routes.
    let listenHost: String
    let publicURL: String?

    func addRoutes(to router: Router<AuthRequestContext>) {
        let root = router.group("dev/idp")
        // Scripts approve without a browser (JSON only, so a web page cannot post these).
        let scripted = root.group("api").add(middleware: DevRequestGuard(listenHost: listenHost, publicURL: publicURL))
        for flavor in DevIdentityProvider.Flavor.allCases {
            DevIdPFlavorController(idp: idp, origin: origin, flavor: flavor).addRoutes(to: root.group(RouterPath(flavor.rawValue)))
        }
        DevIdPScriptedController(idp: idp).addRoutes(to: scripted)
        DevIdPGitHubController(idp: idp, origin: origin).addRoutes(to: root.group("github/api"))
        DevIdPFacebookController(idp: idp, origin: origin).addRoutes(to: root.group("facebook"))
        DevIdPOpenIDConnectController(idp: idp).addRoutes(to: root.group("oidc"))
        root.get("avatar.svg", use: avatar)
        DevIdPDeviceController(idp: idp).addRoutes(to: root)
    }

    /// Every dev identity's picture (`avatar_url`, `picture_url`).
    @Sendable func avatar(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400"],
            body: .init(
                byteBuffer: ByteBuffer(
                    string:
                        ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="#8b949e"/><circle cx="32" cy="25" r="11" fill="#fff"/><path d="M12 54a20 16 0 0 1 40 0z" fill="#fff"/></svg>"##
                )))
    }
}
