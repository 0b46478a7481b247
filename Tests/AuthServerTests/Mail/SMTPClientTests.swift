// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Foundation
import Testing

/// The SMTP client against a real SMTP server (aiosmtpd): plain, STARTTLS with a certificate
/// trusted through `caFile`, AUTH; the message as received; what a relay's refusals make of
/// a delivery (try again, or give up).
@Suite(.timeLimit(.minutes(5))) struct SMTPClientTests {
    static func message(subject: String = "Confirm your email", to: String = "ann@example.com") -> MailMessage {
        MailMessage(
            from: MailAddress("Example Auth <no-reply@example.com>")!, to: MailAddress(to)!, subject: subject,
            text: "Hello,\n\nconfirm: https://app.example.com/confirm?token=T0K3N&tokenId=ID1\n.\nA line with a dot.\n",
            html: "<p>Hello, <a href=\"https://app.example.com/confirm?token=T0K3N&amp;tokenId=ID1\">confirm</a></p>",
            messageId: "<abc123@example.com>", date: 1_795_000_000)
    }

    static func client(
        _ sink: SMTPSink, security: MailConfiguration.Security = .none, auth: (String, String)? = nil,
        trust: Bool = true
    ) throws -> SMTPClient {
        var c = MailConfiguration(
            host: security == .none ? "127.0.0.1" : "localhost", port: sink.port, security: security,
            from: "no-reply@example.com")
        if let auth {
            c.username = auth.0
            c.password = ConfigSecret(auth.1)
        }
        if trust && security != .none { c.caFile = sink.certificate }
        c.commandTimeoutSeconds = 10
        return try SMTPClient(configuration: c)
    }

    static func failure(_ body: () async throws -> Void) async -> SMTPError? {
        do { try await body() } catch let e as SMTPError { return e } catch { return SMTPError.transient("other: \(error)") }
        return nil
    }

    @Test func plainDeliveryAsReceived() async throws {
        let sink = try SMTPSink()
        try await Self.client(sink).send(Self.message(subject: "Bestätigen Sie Ihre E-Mail-Adresse, bitte: ein langer Betreff, der umbrochen wird"))
        let received = try await sink.waitFor(1)
        let mail = try #require(received.first)
        #expect(mail.from == "no-reply@example.com" && mail.to == ["ann@example.com"] && !mail.tls)
        let parsed = ParsedMail(mail.data)
        #expect(parsed.linesAreShortAnd7Bit)
        #expect(parsed.decoded("Subject") == "Bestätigen Sie Ihre E-Mail-Adresse, bitte: ein langer Betreff, der umbrochen wird")
        #expect(parsed.header("From") == "Example Auth <no-reply@example.com>")
        #expect(parsed.header("Message-ID") == "<abc123@example.com>")
        #expect(parsed.header("Date") == "Wed, 18 Nov 2026 11:06:40 +0000")
        #expect(parsed.header("MIME-Version") == "1.0")
        let text = try #require(parsed.parts["text/plain"])
        #expect(text.contains("confirm: https://app.example.com/confirm?token=T0K3N&tokenId=ID1\r\n.\r\nA line with a dot."))
        #expect(parsed.parts["text/html"]?.contains("<a href=\"https://app.example.com/confirm?token=T0K3N&amp;tokenId=ID1\">") == true)
    }

    @Test func starttlsWithAuthentication() async throws {
        let sink = try SMTPSink(starttls: true, auth: ("relay", "s3cret pass"))
        try await Self.client(sink, security: .starttls, auth: ("relay", "s3cret pass")).send(Self.message())
        let mail = try #require(try await sink.waitFor(1).first)
        #expect(mail.tls && mail.auth)

        // Wrong credentials: refused for good, and the error names no credential.
        let wrong = await Self.failure { try await Self.client(sink, security: .starttls, auth: ("relay", "wrong-pass")).send(Self.message()) }
        #expect(wrong?.permanent == true && wrong?.reason.hasPrefix("AUTH PLAIN: 535") == true, "\(String(describing: wrong))")
        #expect(wrong?.reason.contains("wrong-pass") == false)
        // A certificate nobody said to trust: nothing is sent.
        let untrusted = await Self.failure {
            try await Self.client(sink, security: .starttls, auth: ("relay", "s3cret pass"), trust: false).send(Self.message())
        }
        #expect(untrusted != nil, "an untrusted certificate must fail")
        #expect(try sink.received().count == 1)
    }

    @Test func starttlsIsRequiredWhenAskedFor() async throws {
        let sink = try SMTPSink()  // offers no STARTTLS
        let refused = await Self.failure { try await Self.client(sink, security: .starttls, trust: false).send(Self.message()) }
        #expect(refused?.permanent == true && refused?.reason.contains("does not offer STARTTLS") == true, "\(String(describing: refused))")
        #expect(try sink.received().isEmpty)
    }

    @Test func temporaryAndPermanentRefusals() async throws {
        let flaky = try SMTPSink(fail: ["421", "451"])
        for expected in ["421", "451"] {
            let error = await Self.failure { try await Self.client(flaky).send(Self.message()) }
            #expect(error?.permanent == false && error?.reason.contains(expected) == true, "\(String(describing: error))")
        }
        try await Self.client(flaky).send(Self.message())
        #expect(try await flaky.waitFor(1).count == 1)

        let refusing = try SMTPSink(fail: ["550+"])
        let error = await Self.failure { try await Self.client(refusing).send(Self.message()) }
        #expect(error?.permanent == true && error?.reason.hasPrefix("DATA (message): 550") == true, "\(String(describing: error))")

        // Nobody listening: try again later.
        let gone = try SMTPSink()
        gone.stop()
        let down = await Self.failure { try await Self.client(gone).send(Self.message()) }
        #expect(down?.permanent == false && down?.reason.hasPrefix("cannot connect") == true, "\(String(describing: down))")
    }

    @Test func headersCannotBeInjectedAndDotsAreStuffed() {
        #expect(MailAddress("ann@example.com\r\nBcc: eve@example.com") == nil)
        #expect(MailAddress("Ann <ann@example.com>, eve@example.com") == nil)
        #expect(MailAddress("Ann <ann@example.com>")?.address == "ann@example.com")
        #expect(MailHeader.text("Hi\r\nBcc: eve@example.com") == "Hi  Bcc: eve@example.com")
        #expect(MailMessage.dotStuffed("a\r\n.b\r\n..c\r\n") == "a\r\n..b\r\n...c\r\n.\r\n")
        for word in MailHeader.encodedWords(String(repeating: "é", count: 100)) { #expect(word.count <= 75) }
    }
}
