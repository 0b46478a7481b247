// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Testing

@testable import AuthServer

/// Lines of an export read back as they were written.
@Suite struct TransferLineTests {
    /// An account whose email is unproven stays unproven through an export and an import (an
    /// import that forgot it would let the email link and conflict as a proven one); a line
    /// without the key is a proven email, as every export before the key had.
    @Test func anUnprovenEmailStaysUnprovenThroughAnExport() throws {
        for proven in [false, true] {
            let account = UserpassAccount(
                appId: "app", email: "a@example.com", passwordHash: "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
                identityId: "i1", confirmed: true, createdAt: 5, emailVerified: proven)
            let line = TransferLine.line(account: account)
            #expect(String(decoding: line, as: UTF8.self).contains("emailVerified") == !proven)
            guard case .account(let read) = try TransferLine.parse(line[...], app: "app", now: 9, providerId: { $0 }) else {
                Issue.record("not an account line")
                continue
            }
            #expect(read == account)
        }
    }
}
