// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The dev identity provider's device verification page (RFC 8628) at `/dev/idp/device`.
struct DevIdPDeviceController {
    let idp: DevIdentityProvider

    /// Adds the page to `group` (`/dev/idp`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("device", use: page)
        group.post("device", use: decide)
    }

    /// The form for the user code (filled in from `?user_code=`).
    @Sendable func page(_ request: Request, context: AuthRequestContext) async throws -> Response {
        DevIdPRequests.html(DevIdPPages.device(userCode: request.uri.queryParameters.get("user_code").map { String($0) }, message: nil))
    }

    /// The person's decision for a user code.
    @Sendable func decide(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequest.form(request, context)
        let code = FormEncoding.value("user_code", in: form) ?? ""
        do {
            try idp.decideDevice(userCode: code, identity: try DevIdPRequests.identity(form, idp: idp))
        } catch {
            return DevIdPRequests.html(DevIdPPages.device(userCode: code, message: error.message), status: .badRequest)
        }
        let approved = FormEncoding.value("decision", in: form) != "deny"
        return DevIdPRequests.html(
            DevIdPPages.message(
                approved ? "Device connected" : "Request denied",
                approved ? "You can go back to your device." : "The device was not connected."))
    }
}
