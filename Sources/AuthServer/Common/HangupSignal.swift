// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc

/// SIGHUP delivered as a callback on a dispatch queue. Several may be started (the plugins and
/// the TLS certificate each have one): every one is called for each signal.
///
/// `@unchecked Sendable`: the only state is the dispatch source, set once in `start` before
/// the object is shared, and dispatch sources are thread-safe objects (libdispatch documents
/// `cancel` and handler delivery as safe from any thread).
final class HangupSignal: @unchecked Sendable {
    private var source: (any DispatchSourceSignal)?

    func start(_ handler: @escaping @Sendable () -> Void) {
        #if canImport(Darwin)
            // kqueue reports a signal the process ignores, and only then is it not also acted on.
            signal(SIGHUP, SIG_IGN)
        #endif
        // Not on Linux: there libdispatch installs its own handler, and a disposition set to
        // SIG_IGN first can stay in place, the signal then discarded (measured: a server with
        // TLS and no plugins directory never reloaded). swift-service-lifecycle's
        // UnixSignalsSequence ignores signals on Darwin only, for the same reason.
        let source = DispatchSource.makeSignalSource(signal: SIGHUP)
        source.setEventHandler(handler: handler)
        source.resume()
        self.source = source
    }

    deinit { source?.cancel() }
}
