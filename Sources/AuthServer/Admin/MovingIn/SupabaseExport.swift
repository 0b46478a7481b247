// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user of a Supabase project: a row of GoTrue's `auth.users` as `row_to_json` writes it,
/// with `identities`, its rows of `auth.identities` (the query is in
/// `docs/server/moving-in.md`). Read: `id`, `email`, `encrypted_password` (bcrypt, as GoTrue
/// hashes), `email_confirmed_at` (or `confirmed_at`), `created_at`, `last_sign_in_at`,
/// `banned_until`, `raw_user_meta_data` (`full_name` or `name`, `avatar_url` or `picture`),
/// `raw_app_meta_data` (custom data, less GoTrue's own `provider` and `providers`), and each
/// identity's `provider` and `provider_id` (the provider's subject; `id` in GoTrue before
/// 2023). Deleted (`deleted_at`) and anonymous (`is_anonymous`) users are left out.
enum SupabaseExport {
    typealias Refused = ForeignExport.Refused

    static func user(_ d: EJSONDocument, now: Int64, leftOut: inout String?) throws(Refused) -> ForeignUser? {
        let id = try ForeignExport.id(try ForeignExport.string(d, "id"), field: "id")
        if try ForeignExport.string(d, "deleted_at") != nil {
            leftOut = "deleted in Supabase (deleted_at)"
            return nil
        }
        if ForeignExport.flag(d["is_anonymous"]) == true {
            leftOut = "an anonymous user, who could never sign in again"
            return nil
        }
        var user = ForeignUser(id: id)
        user.createdAt = try ForeignExport.string(d, "created_at").flatMap(ForeignExport.seconds)
        user.lastLoginAt = try ForeignExport.string(d, "last_sign_in_at").flatMap(ForeignExport.seconds)
        if let until = try ForeignExport.string(d, "banned_until").flatMap(ForeignExport.seconds), until > now {
            // A ban not over yet: the user comes in disabled (an admin enables it).
            user.disabled = true
        }
        let meta = d["raw_user_meta_data"]?.documentValue ?? [:]
        if let name = (meta["full_name"] ?? meta["name"])?.stringValue, !name.isEmpty { user.profile["name"] = .string(name) }
        if let picture = (meta["avatar_url"] ?? meta["picture"])?.stringValue, !picture.isEmpty {
            user.profile["picture_url"] = .string(picture)
        }
        var custom = d["raw_app_meta_data"]?.documentValue ?? [:]
        custom["provider"] = nil
        custom["providers"] = nil
        user.customData = custom

        let email = try ForeignExport.string(d, "email", max: 254)
        let confirmedAt = try ForeignExport.string(d, "email_confirmed_at")
        let confirmedLater = try ForeignExport.string(d, "confirmed_at")
        let confirmed = (confirmedAt ?? confirmedLater) != nil
        let hash = try ForeignExport.string(d, "encrypted_password", max: 1024)
        if let email { user.profile["email"] = .string(email) }
        guard case .array(let identities)? = d["identities"] ?? .array([]) else { throw Refused("'identities' must be an array") }
        var hasEmailIdentity = false
        for case .document(let i) in identities {
            guard let provider = try ForeignExport.string(i, "provider") else { throw Refused("an identity needs its 'provider'") }
            let data = i["identity_data"]?.documentValue ?? [:]
            let subject = try ForeignExport.string(i, "provider_id", max: 512) ?? data["sub"]?.stringValue ?? i["id"]?.stringValue
            switch provider {
            case "email":
                hasEmailIdentity = true
            case "phone":
                guard let digits = subject ?? d["phone"]?.stringValue else { throw Refused("a phone identity needs its number") }
                user.identities.append((ProviderType.phone, digits.hasPrefix("+") ? digits : "+" + digits, nil))
            default:
                guard let type = ForeignExport.providerType(provider), let subject, !subject.isEmpty else {
                    throw Refused("identity of '\(provider.prefix(40))' needs its provider_id")
                }
                let verified = ForeignExport.flag(data["email_verified"]) == true
                user.identities.append((type, subject, verified ? data["email"]?.stringValue : nil))
            }
        }
        if let email, hasEmailIdentity || hash != nil {
            user.account = (email, hash ?? PasswordHasher.noPassword, confirmed, confirmed)
        }
        guard user.account != nil || !user.identities.isEmpty else {
            throw Refused("no email identity and no other identity: no way to sign in")
        }
        return user
    }
}
