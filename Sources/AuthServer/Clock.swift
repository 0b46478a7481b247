import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's clock: real time plus an offset that dev mode can move forward.
public final class ServerClock: Sendable {
    private let offset = Atomic<Int64>(0)

    /// A clock at real time.
    public init() {}

    /// Now, in Unix seconds.
    public var now: Int64 { Self.realSeconds() + offset.load(ordering: .relaxed) }

    /// Moves the clock forward by `seconds` (the dev API; never backwards).
    public func advance(seconds: Int64) {
        offset.add(max(0, seconds), ordering: .relaxed)
    }

    private static func realSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
