// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Testing

/// The budget of failures the audit log keeps: so many a minute per address, a bounded number
/// of addresses, all of it anew each minute.
@Suite(.timeLimit(.minutes(5))) struct AuditFailureBudgetTests {
    @Test func perAddressPerMinuteAndBounded() {
        let budget = AuditFailureBudget(perMinute: 3, addresses: 2)
        #expect((0..<5).map { _ in budget.take("a", now: 60) } == [true, true, true, false, false])
        #expect(budget.take("b", now: 61))
        #expect(!budget.take("c", now: 62), "a third address while two are counted")
        #expect(budget.take("b", now: 119), "an address already counted goes on")
        #expect(budget.take("a", now: 120) && budget.take("c", now: 121), "a new minute starts again")
    }
}
