// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (a socket waiting for a browser, making an RSA key) on a thread of its
/// own. Not on `DispatchQueue.global()`: on Linux its threads are the ones Swift's
/// cooperative executor runs every task on, as many as there are cores, so two blocked
/// waits there stall every task of the process.
public enum BlockingThread {
    /// `body`'s result, computed on a new detached thread.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            detach { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new detached thread and returns at once.
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, box)
        if created == 0 {
            pthread_detach(thread)
        } else {
            // No thread to be had: run it here rather than lose it.
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }

    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
