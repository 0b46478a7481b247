// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// The mail queue, on every engine: a mail leased by one caller is given to no other until
/// its lease ends, a token and its mail are stored together, finished mail loses its content.
extension StoreConformanceTests {
    static func mail(_ id: String, at time: Int64 = 10) -> QueuedMail {
        QueuedMail(
            id: id, appId: "app", kind: "confirm", recipient: "\(id)@example.com", content: "{\"to\":\"x\"}",
            messageId: "<\(id)@example.com>", createdAt: time, nextAttempt: time)
    }

    @Test(arguments: Engine.allCases)
    func mailIsLeasedToOneAtATime(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.enqueueMail(Self.mail("m1"))
            try await store.enqueueMail(Self.mail("m2", at: 50))
            #expect(try await store.queuedMailCount() == 2)
            #expect(try await store.leaseDueMail(now: 9, leaseUntil: 100, limit: 10).isEmpty, "not due yet")
            let first = try await store.leaseDueMail(now: 20, leaseUntil: 100, limit: 10)
            #expect(first.map(\.id) == ["m1"] && first.first?.attempts == 1)
            #expect(try await store.leaseDueMail(now: 60, leaseUntil: 100, limit: 10).map(\.id) == ["m2"], "m1 is leased")
            #expect(try await store.leaseMail(id: "m1", now: 99, leaseUntil: 200) == nil)
            #expect(try await store.leaseMail(id: "m1", now: 100, leaseUntil: 200)?.attempts == 2, "the lease ran out")

            // The first lease (attempt 1) ran out and was taken again (attempt 2): its late
            // answer changes nothing.
            #expect(try await store.retryMail(id: "m1", attempt: 1, error: "stale", next: 900) == false)
            #expect(try await store.finishMail(id: "m1", attempt: 1, state: .sent, error: nil, at: 150) == false)
            #expect(try await store.queuedMail(id: "m1")?.state == .queued)
            #expect(try await store.retryMail(id: "m1", attempt: 2, error: "421 later", next: 300))
            #expect(try await store.leaseDueMail(now: 299, leaseUntil: 400, limit: 10).map(\.id) == ["m2"], "m1 waits for its retry")
            let again = try await store.leaseDueMail(now: 300, leaseUntil: 400, limit: 10)
            #expect(again.first?.lastError == "421 later" && again.first?.attempts == 3)

            #expect(try await store.finishMail(id: "m1", attempt: 3, state: .sent, error: nil, at: 310))
            #expect(try await store.finishMail(id: "m2", attempt: 2, state: .failed, error: "550 no", at: 320))
            #expect(try await store.finishMail(id: "m2", attempt: 2, state: .sent, error: nil, at: 330) == false, "finished once")
            let sent = try #require(try await store.queuedMail(id: "m1"))
            #expect(sent.state == .sent && sent.content.isEmpty)
            #expect(try await store.queuedMail(id: "m2")?.lastError == "550 no")
            #expect(try await store.queuedMailCount() == 0)
            #expect(try await store.leaseMail(id: "m1", now: 1000, leaseUntil: 2000) == nil, "finished mail is never leased")
            #expect(try await store.deleteFinishedMail(before: 315) == 1)
            #expect(try await store.queuedMail(id: "m1") == nil)
            #expect(try await store.queuedMail(id: "m2") != nil)
        }
    }

    @Test(arguments: Engine.allCases)
    func racingLeasesGiveEachMailOnce(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            for i in 0..<30 { try await store.enqueueMail(Self.mail("r\(i)")) }
            let leased = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<6 { group.addTask { try await store.leaseDueMail(now: 20, leaseUntil: 100, limit: 10).map(\.id) } }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(leased.count == 30 && Set(leased).count == 30, "\(leased.count) leases of \(Set(leased).count) mails")
        }
    }

    @Test(arguments: Engine.allCases)
    func aTokenAndItsMailAreStoredTogether(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            let token = OneTimeToken(id: "t1", appId: "app", kind: .confirm, email: "ann@example.com", digest: [1], expiresAt: 100)
            try await store.insertToken(token, now: 0, keep: 5, mail: Self.mail("with-token"))
            #expect(try await store.queuedMail(id: "with-token")?.recipient == "with-token@example.com")
            // A mail that cannot be stored takes its token with it.
            let second = OneTimeToken(id: "t2", appId: "app", kind: .confirm, email: "ann@example.com", digest: [2], expiresAt: 100)
            #expect(await Self.isConflict { try await store.insertToken(second, now: 0, keep: 5, mail: Self.mail("with-token")) })
            #expect(try await store.consumeToken(app: "app", kind: .confirm, id: "t2", digest: [2], now: 1) == nil)
            #expect(try await store.consumeToken(app: "app", kind: .confirm, id: "t1", digest: [1], now: 1) == "ann@example.com")
        }
    }
}
