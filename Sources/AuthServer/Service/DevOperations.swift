// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// What the dev API changes (dev mode only): an app's config by merge patch, and the clock.
struct DevOperations {
    let clock: ServerClock
    /// The Lua plugins, whose exports a config must name.
    let plugins: PluginRuntime
    let sweeper: StoreSweeper

    /// Applies `patch` (RFC 7396) to the app's config, checked as a config file is; returns
    /// the config now.
    func patchConfig(app: AppRuntime, patch: EJSONDocument) async throws -> EJSON {
        let merged = Self.mergePatch(app.config.ejson, .document(patch))
        do {
            let config = try AppConfiguration(ejson: merged, path: "")
            try PluginFunctions.checkFunctionNames(config, exports: plugins.exports)
            try await app.update(config)
        } catch {
            throw ServiceError(.invalidParameter, "\(error)")
        }
        return app.config.ejson
    }

    /// Moves the clock `seconds` forward and sweeps the anonymous users that expired; returns
    /// the time now.
    func advanceClock(seconds: Int64) async throws(ServiceError) -> Int64 {
        guard seconds >= 0 else {
            throw ServiceError(.invalidParameter, "parameter 'advanceSeconds' must be a non-negative integer")
        }
        guard clock.advance(seconds: seconds) else {
            throw ServiceError(
                .invalidParameter,
                "parameter 'advanceSeconds' would move the clock past the year 9999 (\(ServerClock.latest) Unix seconds)")
        }
        await sweeper.sweep()
        return clock.now
    }

    /// RFC 7396 JSON merge patch: documents merge key by key, null removes, anything else replaces.
    static func mergePatch(_ target: EJSON, _ patch: EJSON) -> EJSON {
        guard case .document(let p) = patch else { return patch }
        var result = target.documentValue ?? [:]
        for (key, value) in p {
            if value == .null { result[key] = nil } else { result[key] = mergePatch(result[key] ?? .null, value) }
        }
        return .document(result)
    }
}
