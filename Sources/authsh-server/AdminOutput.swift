// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import CommandSupport

/// How `authsh admin` prints users as text (and its `--json` one-liners). Users' fields came
/// from outside (an email, an IdP's external id, custom data): what reaches the terminal goes
/// through ``TerminalText``.
enum AdminOutput {
    /// One JSON line, with characters that could act on a terminal escaped.
    static func json(_ doc: EJSONDocument) -> String { json(value: .document(doc)) }

    /// One JSON line of any value, with characters that could act on a terminal escaped.
    static func json(value: EJSON) -> String { TerminalText.safeJSON(value.encodedString(.relaxed)) }

    /// One user on one line: id, state, created, last login, emails, providers.
    static func line(_ user: EJSON) -> String {
        let identities = user["identities"]?.arrayValue ?? []
        let emails = Set(identities.compactMap { $0["email"]?.stringValue } + [user["data"]?["email"]?.stringValue].compactMap { $0 })
        let providers = identities.compactMap { $0["providerType"]?.stringValue }
        var parts = [
            user["id"]?.stringValue ?? "?", user["disabled"] == true ? "disabled" : "enabled",
            "created=" + time(user["createdAt"]), "last_login=" + time(user["lastLoginAt"]),
        ]
        if !emails.isEmpty { parts.append("email=" + emails.sorted().joined(separator: ",")) }
        parts.append("providers=" + (providers.isEmpty ? "-" : providers.joined(separator: ",")))
        return TerminalText.safe(parts.joined(separator: " "))
    }

    /// A user's page as text: the line, then identities, sessions, keys, custom data, audit.
    static func details(_ user: EJSON) -> String {
        var lines = [line(user)]
        for i in user["identities"]?.arrayValue ?? [] {
            lines.append(
                "  identity \(i["providerType"]?.stringValue ?? "?") \(i["externalId"]?.stringValue ?? "?")"
                    + (i["email"]?.stringValue.map { " email=\($0)" } ?? ""))
        }
        for s in user["sessions"]?.arrayValue ?? [] {
            lines.append(
                "  session \(s["id"]?.stringValue ?? "?") \(s["providerType"]?.stringValue ?? "?") created=\(time(s["createdAt"]))"
                    + " last_used=\(time(s["lastUsed"]))")
        }
        for k in user["apiKeys"]?.arrayValue ?? [] {
            lines.append("  api-key \(k["name"]?.stringValue ?? "?")\(k["disabled"] == true ? " (disabled)" : "")")
        }
        if let custom = user["customData"], custom != .null { lines.append("  custom-data \(custom.encodedString(.relaxed))") }
        for e in (user["audit"]?.arrayValue ?? []).reversed() {
            var text = "  audit \(time(e["time"])) \(e["event"]?.stringValue ?? "?") \(e["outcome"]?.stringValue ?? "?")"
            if let actor = e["actor"]?.stringValue { text += " actor=\(actor)" }
            if let address = e["address"]?.stringValue { text += " address=\(address)" }
            lines.append(text)
        }
        return lines.map { TerminalText.safe($0) }.joined(separator: "\n")
    }

    /// ISO-8601 of unix seconds, or `-` for none.
    static func time(_ value: EJSON?) -> String {
        guard let seconds = value?.integerValue else { return "-" }
        return ISODate.format(milliseconds: seconds * 1000)
    }
}
