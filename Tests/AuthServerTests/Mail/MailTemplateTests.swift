// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Foundation
import TestSupport
import Testing

/// The mails' templates: defaults that say what to do with the link (or the token when there
/// is no link), values escaped in HTML and not in text, and files that override them per
/// kind and per app.
@Suite(.timeLimit(.minutes(5))) struct MailTemplateTests {
    static let values = [
        "app": "shop", "email": "ann@example.com", "token": "T0K", "tokenId": "ID1", "minutes": "30",
        "subject": "Confirm your account", "link": "https://app.example.com/confirm?token=T0K&tokenId=ID1",
    ]

    @Test func defaultsCarryTheLinkOrTheToken() throws {
        let templates = MailTemplates.defaults
        let mail = templates.render("confirm", app: "shop", values: Self.values)
        #expect(mail.subject == "Confirm your account")
        #expect(mail.text.contains("\nhttps://app.example.com/confirm?token=T0K&tokenId=ID1\n") && mail.text.contains("30 minutes"))
        #expect(mail.html.contains("href=\"https://app.example.com/confirm?token=T0K&amp;tokenId=ID1\""))
        var noLink = Self.values
        noLink["link"] = nil
        let token = templates.render("reset", app: "shop", values: noLink)
        #expect(token.text.contains("token: T0K\ntokenId: ID1") && !token.text.contains("https://"))
        #expect(token.html.contains("<code>T0K</code>") && !token.html.contains("href"))

        // A plugin's text goes as written in the text part, escaped in the HTML part.
        let plugin = templates.render("plugin", app: "shop", values: ["subject": "Hi\nthere", "body": "a < b & <script>x</script>"])
        #expect(plugin.subject == "Hi there" && plugin.text == "a < b & <script>x</script>")
        #expect(plugin.html.contains("a &lt; b &amp; &lt;script&gt;") && !plugin.html.contains("<script>"))
    }

    @Test func filesOverrideByKindThenByApp() throws {
        let directory = Scratch.path("templates")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/shop", withIntermediateDirectories: true)
        try "Welcome to {{app}}".write(toFile: directory + "/confirm.subject.mustache", atomically: true, encoding: .utf8)
        try "Shop: {{link}}".write(toFile: directory + "/shop/confirm.text.mustache", atomically: true, encoding: .utf8)
        try "ignored".write(toFile: directory + "/confirm.txt", atomically: true, encoding: .utf8)
        let templates = try MailTemplates(directory: directory)
        let shop = templates.render("confirm", app: "shop", values: Self.values)
        #expect(shop.subject == "Welcome to shop" && shop.text == "Shop: https://app.example.com/confirm?token=T0K&tokenId=ID1")
        #expect(shop.html.contains("Confirm my email"), "no HTML file: the default")
        var otherValues = Self.values
        otherValues["app"] = "other"
        let other = templates.render("confirm", app: "other", values: otherValues)
        #expect(other.subject == "Welcome to other" && other.text.hasPrefix("Hello,"))

        try "{{#broken}}".write(toFile: directory + "/reset.html.mustache", atomically: true, encoding: .utf8)
        #expect {
            _ = try MailTemplates(directory: directory)
        } throws: { ($0 as? ConfigError)?.description.contains("reset.html.mustache") == true }
        #expect(throws: ConfigError.self) { _ = try MailTemplates(directory: directory + "/missing") }
    }
}
