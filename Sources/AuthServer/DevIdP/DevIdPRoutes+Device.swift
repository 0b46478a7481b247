import AuthProtocol
import Hummingbird

/// The dev identity provider's device verification (RFC 8628): the page at `/dev/idp/device`, and a
/// script's approval of a user code.
extension AuthService {
    /// Adds the verification page under `root`, and `device/approve` to `scripted`.
    func addDevIdPDeviceRoutes(to root: RouterGroup<AuthRequestContext>, scripted: RouterGroup<AuthRequestContext>, idp: DevIdentityProvider) {
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

        scripted.post("device/approve") { request, context in
            let body = try await RequestBody.read(request, context: context)
            try idp.decideDevice(
                userCode: try body.string("userCode"),
                identity: try Self.identity(body, deny: body.document["decision"] == "deny"))
            return JSONResponse.empty
        }
    }
}
