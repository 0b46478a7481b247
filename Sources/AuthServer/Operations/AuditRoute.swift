// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes

/// The audited routes: which event a request is, its app and provider when the path names them.
struct AuditRoute: Equatable {
    var event: String
    var appId: String?
    var provider: String?

    /// The route's event, or nil for a route that is not audited (reads but the OAuth callback,
    /// refreshes, function calls; their own events, such as a plugin killed, are still written).
    /// - Parameter linking: the request's decoded `link` parameter is `true` (as the login
    ///   route reads it); decoding the query is left to the login route's requests.
    init?(method: HTTPRequest.Method, path: String, linking: @autoclosure () -> Bool) {
        if let event = Self.firebaseEvent(method: method, path: path) {
            self.init(event: event)
            return
        }
        guard path.hasPrefix(Routes.base + "/") else { return nil }
        let parts = path.dropFirst(Routes.base.count + 1).split(separator: "/").map(String.init)
        // The web redirect flow's callback (a GET, or Apple's form post) finishes a login or a
        // link; its app and provider come from the flow (``AuditTrail``).
        if parts == ["auth", "callback"], method == .get || method == .post {
            self.init(event: "login")
            return
        }
        guard method != .get else { return nil }
        switch (method, parts.count, parts.first) {
        case (.post, 6, "app") where parts[2] == "auth" && parts[3] == "providers" && parts[4] == "mfa" && parts[5] == "sms":
            self.init(event: "sms_requested", appId: parts[1], provider: parts[4])
        case (.post, 6, "app") where parts[2] == "auth" && parts[3] == "providers" && parts[5] == "login":
            self.init(event: linking() ? "link" : "login", appId: parts[1], provider: parts[4])
        case (.post, 6, "app") where parts[2] == "auth" && parts[3] == "providers" && parts[4] == ProviderType.userpass:
            guard let event = ["register": "register", "confirm": "confirm", "reset": "reset_done", "change": "password_changed"][parts[5]]
            else { return nil }
            self.init(event: event, appId: parts[1], provider: parts[4])
        case (.post, 7, "app") where parts[2] == "auth" && parts[3] == "providers" && parts[4] == ProviderType.userpass:
            guard ["send", "call"].contains(parts[6]) else { return nil }
            switch parts[5] {
            case "confirm": self.init(event: "confirm_requested", appId: parts[1], provider: parts[4])
            case "reset": self.init(event: "reset_requested", appId: parts[1], provider: parts[4])
            default: return nil
            }
        case (.post, 2, "auth") where parts[1] == "unlink": self.init(event: "unlink")
        case (.delete, 2, "auth") where parts[1] == "delete": self.init(event: "user_deleted")
        case (.delete, 2, "auth") where parts[1] == "session": self.init(event: "logout")
        case (.delete, _, "auth") where parts[1] == "sessions" && parts.count <= 3: self.init(event: "session_revoked")
        case (.post, 2, "auth") where parts[1] == "api_keys": self.init(event: "api_key_created")
        case (.delete, 3, "auth") where parts[1] == "api_keys": self.init(event: "api_key_deleted")
        case (.post, 3, "auth") where parts[1] == "mfa" && parts[2] == "totp": self.init(event: "totp_enrolment_started")
        case (.post, 4, "auth") where parts[1] == "mfa" && parts[2] == "totp" && parts[3] == "confirm": self.init(event: "totp_enrolled")
        case (.delete, 3, "auth") where parts[1] == "mfa" && parts[2] == "totp": self.init(event: "totp_removed")
        case (.post, 3, "auth") where parts[1] == "mfa" && parts[2] == "recovery_codes": self.init(event: "recovery_codes_replaced")
        case (.post, 2, "auth") where parts[1] == "passkeys": self.init(event: "passkey_registered")
        case (.delete, 3, "auth") where parts[1] == "passkeys": self.init(event: "passkey_removed")
        case (.put, 4, "auth") where parts[1] == "api_keys" && (parts[3] == "enable" || parts[3] == "disable"):
            self.init(event: parts[3] == "enable" ? "api_key_enabled" : "api_key_disabled")
        default:
            return nil
        }
    }

    init(event: String, appId: String? = nil, provider: String? = nil) {
        self.event = event
        self.appId = appId
        self.provider = provider
    }
}
