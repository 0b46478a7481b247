// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua

/// What Firebase Auth's API has and App Services' has not, in Lua: the user's display name and
/// photo, email changes, verification mails, and sign-in links (`credentials.emailLink`). Over
/// App Services' API each raises `NotInProtocol`, naming the app's protocol.
enum FirebaseBindings {
    /// The `User` methods.
    static func userMembers() -> [LuaMember<UserObject>] {
        func method(
            _ name: String, _ type: String, _ summary: String,
            _ body: @escaping @Sendable (User, LuaCall) throws -> @Sendable () async throws -> [LuaValue]
        ) -> LuaMember<UserObject> { UserObject.method(name, type, summary, on: { $0 }, body) }
        return [
            method(
                "updateProfile", "(profile: {displayName: string?, photoURL: string?})",
                "Firebase only: sets the display name and photo URL (an empty string removes one, a missing field leaves it); "
                    + "the profile here follows"
            ) { user, call in
                let profile = try call.table(2)
                let name = try optionalField(profile, "displayName"), photo = try optionalField(profile, "photoURL")
                return {
                    try await user.updateProfile(displayName: name, photoURL: photo); return []
                }
            },
            method(
                "updateEmail", "(email: string)",
                "Firebase only: moves the email/password account to `email` at once (a recent login; refused where the project "
                    + "protects emails from enumeration: use `verifyBeforeUpdateEmail`)"
            ) { user, call in
                let email = try call.string(2)
                return {
                    try await user.updateEmail(email); return []
                }
            },
            method(
                "verifyBeforeUpdateEmail", "(email: string)",
                "Firebase only: mails `email` a link that moves the account there once followed (a recent login)"
            ) { user, call in
                let email = try call.string(2)
                return {
                    try await user.verifyBeforeUpdateEmail(email); return []
                }
            },
            method("sendEmailVerification", "()", "Firebase only: mails the user's email a link that verifies it") { user, _ in
                {
                    try await user.sendEmailVerification(); return []
                }
            },
        ]
    }

    /// `credentials.emailLink(email, link)`.
    static func emailLink(_ call: LuaCall) throws -> Credentials {
        let values = try call.strings(["email", "link"], from: 1)
        return .emailLink(email: values[0], link: values[1])
    }

    /// `app.emailPasswordAuth:sendSignInLink(email [, continueURL])`.
    static let sendSignInLink = LuaMember<EmailPasswordAuthObject>.method(
        "sendSignInLink", "(email: string, continueURL: string?)",
        "Firebase only: mails a sign-in link, which `credentials.emailLink(email, link)` signs in with"
    ) { object, call in
        let email = try call.string(2)
        let continueURL = try call.optionalString(3) ?? "http://localhost"
        let auth = try object.app.app().emailPasswordAuth
        return perform(call) {
            try await auth.sendSignInLink(email: email, continueURL: continueURL); return []
        }
    }

    private static func optionalField(_ table: LuaTable, _ name: String) throws -> String? {
        switch table[name] {
        case .nil: return nil
        case let value:
            guard let text = value.stringValue else {
                throw LuaArgumentError(index: 2, message: "field '\(name)' must be a string, got \(value.typeName)")
            }
            return text
        }
    }
}
