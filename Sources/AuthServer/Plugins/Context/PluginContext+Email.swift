// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON

extension PluginContext {
    /// `context.email.send{to=, subject=, body=}`.
    var send: LuaFunction {
        LuaFunction("send") { [self] call in
            _ = try invocation("context.email.send")
            let t = try call.table(1)
            func field(_ name: String, limit: Int) throws -> String {
                guard let text = t[name].stringValue, !text.isEmpty else {
                    throw LuaArgumentError(index: 1, message: "field '\(name)' must be a non-empty string")
                }
                guard text.utf8.count <= limit else {
                    throw LuaArgumentError(index: 1, message: "field '\(name)' is longer than \(limit) bytes")
                }
                return text
            }
            let to = try field("to", limit: 254)
            guard to.contains("@"), !to.contains(where: \.isWhitespace) else {
                throw LuaArgumentError(index: 1, message: "field 'to' is not an email address")
            }
            try countMail(to: to)
            let mail = services.templates.render(
                "plugin", app: services.appId,
                values: [
                    "app": services.appId, "email": to, "subject": try field("subject", limit: PluginLimits.emailSubjectBytes),
                    "body": try field("body", limit: PluginLimits.emailBodyBytes),
                ])
            let message = OutboxMessage(
                to: to, subject: mail.subject, body: mail.text, kind: "plugin",
                token: "", tokenId: "", link: "", sentAt: services.clock.now, html: mail.html)
            let invocation = try invocation("context.email.send")
            let (effects, hourly) = (effects(invocation), invocation.quota.mailsPerAddressPerHour)
            return .async {
                try await effects.send(message, hourly: hourly)
                return []
            }
        }
    }

    /// Counts a mail against the call's `mailsPerCall`; raises naming the limit past it. (The
    /// address's hourly share is counted when the mail is sent.)
    private func countMail(to: String) throws {
        let quota = try invocation("context.email.send").quota
        let sent = slot.withLock { (current: inout PluginInvocation?) -> Int in
            current?.mailsSent += 1
            return current?.mailsSent ?? 0
        }
        guard quota.mailsPerCall == 0 || sent <= quota.mailsPerCall else {
            throw LuaRaise("context.email.send: at most \(quota.mailsPerCall) mails per call (pluginLimits.mailsPerCall)")
        }
    }

    /// The mailbox an address reaches, as far as a count per address goes: ASCII case, a
    /// `+tag` and a trailing dot of the domain make no other mailbox (`Ada+1@Example.com.` is
    /// `ada@example.com`).
    static func mailbox(_ address: String) -> String {
        let lower = Emails.asciiLowercased(address)
        guard let at = lower.lastIndex(of: "@") else { return lower }
        let local = lower[..<at].prefix { $0 != "+" }
        var domain = lower[lower.index(after: at)...]
        while domain.hasSuffix(".") { domain = domain.dropLast() }
        return local + "@" + domain
    }
}
