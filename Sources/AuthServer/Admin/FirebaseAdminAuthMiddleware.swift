// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// Lets a request into the Firebase Admin API (``FirebaseAdminController``) with an authsh
/// admin key (`Authorization: Bearer KEY`, over a channel ``AdminChannel`` allows), or, in dev
/// mode only, with the Auth emulator's `Bearer owner`, which the Admin SDKs send in emulator
/// mode. Refusals are Google's `401 UNAUTHENTICATED`; answers are never cached.
struct FirebaseAdminAuthMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let keys: AdminKeys
    let channel: AdminChannel
    /// Dev mode: `Bearer owner` is the emulator's admin credential.
    let dev: Bool

    /// The emulator's admin credential, and the key name its changes carry in the audit log.
    static let emulatorOwner = "owner"
    /// The refusal of a request without a credential.
    static let missingCredential =
        "Request is missing required authentication credential: an authsh admin key (Authorization: Bearer KEY)."

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let header = request.headers[.authorization]
        let token = header.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        var context = context
        if dev, token == Self.emulatorOwner {
            context.adminKeyName = Self.emulatorOwner
        } else {
            guard channel.apiTakesKey(request, context) else {
                return FirebaseError(403, AdminChannel.refusal.message, status: "PERMISSION_DENIED", reason: "forbidden").response
            }
            guard let token else {
                return FirebaseError(401, Self.missingCredential, status: "UNAUTHENTICATED", reason: "unauthorized").response
            }
            guard let name = keys.name(of: token) else {
                return FirebaseError(401, "Request had invalid authentication credentials.", status: "UNAUTHENTICATED", reason: "unauthorized")
                    .response
            }
            context.adminKeyName = name
        }
        var response = try await next(request, context)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
