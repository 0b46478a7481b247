// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// GitHub's REST API as `oauth2-github` uses it: the user (`GET /user`), their emails
/// (`GET /user/emails`: the primary one, when verified), and whether an access token was
/// issued to this app (`POST /applications/{client_id}/token`).
struct GitHubAPI {
    let provider: OAuthProvider

    private var base: String {
        get throws(ServiceError) { try provider.origin.resolve(provider.config.apiURL ?? "https://api.github.com") }
    }

    /// The GitHub user behind `token`. The email is the primary address, in the profile only
    /// when GitHub says it is verified; without the `user:email` scope there is none.
    func identity(_ token: String) async throws(ServiceError) -> OAuthProvider.Verified {
        let http = provider.http
        let user = try await http.get(try base + "/user", bearer: token)
        guard user.ok, case .document = user.body else {
            throw ServiceError(.authError, "\(provider.config.type) refused the access token (status \(user.status))")
        }
        guard let id = user.body["id"]?.integerValue else { throw http.unavailable("its /user answer has no id") }
        var email: String?
        var verified = false
        let emails = try await http.get(try base + "/user/emails", bearer: token)
        if emails.ok, case .array(let list) = emails.body,
            let primary = list.first(where: { $0["primary"] == .bool(true) })
        {
            email = primary["email"]?.stringValue
            verified = primary["verified"] == .bool(true)
        } else if case .string(let public_)? = user.body["email"] {
            email = public_  // a public email GitHub shows, not known to be verified
        }
        var profile = try AppConfiguration.MetadataField.profile(
            provider.config.metadataFields, from: user.body,
            provider: provider.config.type)
        if let email, verified { profile["email"] = .string(email) }
        if case .string(let name)? = user.body["name"] ?? user.body["login"] { profile["name"] = .string(name) }
        if case .string(let login)? = user.body["login"] { profile["login"] = .string(login) }
        if case .string(let avatar)? = user.body["avatar_url"] { profile["picture_url"] = .string(avatar) }
        return .init(subject: String(id), profile: profile, email: email, emailVerified: verified)
    }

    /// Refuses a token GitHub did not issue to this app's client id (a token for another app
    /// must not log in here). Needs the client secret: without one GitHub cannot be asked, and
    /// the token is refused rather than taken on trust.
    func checkToken(_ token: String) async throws(ServiceError) {
        guard let secret = provider.config.clientSecret?.value else {
            throw ServiceError(.authError, "\(provider.config.type) needs clientSecret to check access tokens")
        }
        let id = provider.config.clientId
        let reply = try await provider.http.postJSON(
            try base + "/applications/\(FormEncoding.escape(id))/token",
            ["access_token": .string(token)], basic: (id, secret))
        guard reply.ok else {
            throw ServiceError(.authError, "\(provider.config.type) refused the access token: not issued to this app")
        }
    }
}
