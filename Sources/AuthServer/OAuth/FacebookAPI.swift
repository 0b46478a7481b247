// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The Graph API as `oauth2-facebook` uses it: `debug_token` (was the token issued to this
/// app, and is it valid), then `/me?fields=id,name,email,picture`.
struct FacebookAPI {
    let provider: OAuthProvider

    func identity(_ token: String, checkClient: Bool) async throws(ServiceError) -> OAuthProvider.Verified {
        let config = provider.config
        let graph = try provider.origin.resolve(config.graphURL ?? "https://graph.facebook.com")
        if checkClient {
            guard let secret = config.clientSecret?.value else {
                throw ServiceError(.authError, "\(config.type) needs clientSecret to check access tokens")
            }
            let query = FormEncoding.encode([("input_token", token), ("access_token", "\(config.clientId)|\(secret)")])
            let debug = try await provider.http.get(graph + "/debug_token?" + query)
            guard debug.ok, let data = debug.body["data"], data["is_valid"] == .bool(true),
                data["app_id"]?.stringValue == config.clientId
            else {
                throw ServiceError(.authError, "\(config.type) refused the access token: not valid for this app")
            }
        }
        let me = try await provider.http.get(graph + "/me?fields=id,name,email,picture", bearer: token)
        guard me.ok, case .document = me.body else {
            throw ServiceError(.authError, "\(config.type) refused the access token (status \(me.status))")
        }
        guard case .string(let id)? = me.body["id"], !id.isEmpty else { throw provider.http.unavailable("its /me answer has no id") }
        var profile = try AppConfiguration.MetadataField.profile(config.metadataFields, from: me.body, provider: config.type)
        // Facebook gives an email only once the person confirmed it.
        let email = me.body["email"]?.stringValue
        if let email { profile["email"] = .string(email) }
        if case .string(let name)? = me.body["name"] { profile["name"] = .string(name) }
        if case .string(let url)? = me.body["picture"]?["data"]?["url"] { profile["picture_url"] = .string(url) }
        return .init(subject: id, profile: profile, email: email, emailVerified: email != nil)
    }
}
