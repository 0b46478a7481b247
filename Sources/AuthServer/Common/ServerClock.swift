// SPDX-License-Identifier: Apache-2.0
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// The server's clock: real time plus an offset that dev mode can move forward.
public final class ServerClock: Sendable {
    private let offset = Atomic<Int64>(0)
    /// The time a frozen clock shows (before ``advance(seconds:)``); nil: real time.
    private let frozen: Int64?

    /// A clock at real time.
    public init() { frozen = nil }

    /// A clock that shows `time` until moved (tests whose outcome must not depend on how long
    /// their requests take on a busy machine).
    public init(frozenAt time: Int64) { frozen = time }

    /// Now, in Unix seconds.
    public var now: Int64 { base + offset.load(ordering: .relaxed) }

    /// The time before the offset: real, or frozen.
    private var base: Int64 { frozen ?? Self.realSeconds() }

    /// The latest time the clock may show: the end of the year 9999, so that every time in
    /// milliseconds, and every token lifetime added to it, stays far from Int64's limits.
    public static let latest: Int64 = 253_402_300_799

    /// Moves the clock forward by `seconds` (the dev API; never backwards). Returns false, and
    /// leaves the clock alone, when that would pass ``latest``.
    @discardableResult
    public func advance(seconds: Int64) -> Bool {
        let step = max(0, seconds)
        while true {
            let current = offset.load(ordering: .relaxed)
            guard step <= Self.latest - base - current else { return false }
            if offset.compareExchange(expected: current, desired: current + step, ordering: .relaxed).exchanged { return true }
        }
    }

    private static func realSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
