// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Dispatch
import Glibc
import Logging
import Lua
import Synchronization

/// The server's Lua plugins: the files of the plugins directory, the functions they export,
/// and a pool of sandboxed states per app to run them on.
///
/// Calls run where ``PluginExecutor`` says (never on a thread the server needs to answer other
/// requests). In dev mode a changed file is reloaded for the next call; in production on
/// SIGHUP. A file that no longer loads keeps its last good version, and the reason is logged.
final class PluginRuntime: Sendable {
    let directory: String?
    let limits: LuaState.SandboxLimits
    private let logger: Logger
    private let current: Mutex<PluginSet>
    private let pools: [String: PluginPool]
    private let probeServices: PluginServices
    private let watcher: DirectoryWatcher?
    private let reloadRequested = Atomic<Bool>(false)
    private let reloadLock = Mutex<Void>(())
    /// Checks that the names the apps' configs use still resolve; returns what does not.
    private let validator = Mutex<(@Sendable (Set<String>) -> String?)?>(nil)
    private let hangup: HangupSignal?
    /// Loads every plugin file; a file that does not load, or two files exporting one name,
    /// is a ``ConfigError`` naming the file.
    /// - Parameters:
    ///   - directory: the plugins directory; nil for none. A missing directory is empty unless `required`.
    ///   - watch: reload changed files for the next call (dev mode).
    ///   - reloadOnHangup: reload on SIGHUP (production).
    init(
        directory: String?, required: Bool, limits: LuaState.SandboxLimits, watch: Bool, reloadOnHangup: Bool,
        apps: [PluginServices], logger: Logger
    ) throws(ConfigError) {
        guard let first = apps.first else { throw ConfigError(key: "apps", reason: "missing: there is no app to serve") }
        self.directory = directory
        self.limits = limits
        self.logger = logger
        probeServices = PluginServices(appId: "", store: first.store, mailer: first.mailer, clock: first.clock, logger: logger)
        let capacity = PluginExecutor.shared.threads
        pools = Dictionary(
            uniqueKeysWithValues: apps.map {
                ($0.appId, PluginPool(services: $0, limits: limits, capacity: capacity))
            })
        var files: [PluginFile] = []
        if let directory {
            if required && !Self.isDirectory(directory) {
                throw ConfigError(file: directory, key: "", reason: "the plugins directory does not exist")
            }
            do throws(PluginScanError) { files = try PluginSet.scan(directory) } catch {
                throw ConfigError(file: error.path, key: "", reason: error.reason)
            }
        }
        var set = PluginSet()
        do {
            let probe = try PluginState(services: probeServices, limits: limits, generation: 0)
            for file in files {
                let names: [String]
                do { names = try probe.load(file) } catch {
                    throw ConfigError(file: Self.path(directory, file), key: "", reason: Self.describe(error))
                }
                for name in names {
                    if let other = set.exports[name] {
                        throw ConfigError(
                            file: Self.path(directory, file), key: "",
                            reason: "exports '\(name)', which \(other) exports too")
                    }
                    set.exports[name] = file.fileName
                }
                set.files.append(file)
            }
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(file: directory, key: "", reason: "cannot create a plugin state: \(error)")
        }
        current = Mutex(set)
        watcher = watch ? directory.flatMap { DirectoryWatcher(directory: $0) } : nil
        hangup = reloadOnHangup ? HangupSignal() : nil
        hangup?.start { [weak self] in self?.reloadRequested.store(true, ordering: .relaxed) }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func path(_ directory: String?, _ file: PluginFile) -> String {
        (directory.map { $0 + "/" } ?? "") + file.fileName
    }

    /// One line for a load or run error (syntax errors already name the file and line).
    static func describe(_ error: any Error) -> String {
        if let lua = error as? LuaError { return lua.message }
        return "\(error)"
    }

    /// The exported function names now.
    var exports: Set<String> { Set(current.withLock { $0.exports.keys }) }

    /// Installs the check that a reload must pass (the apps' configured names).
    func setValidator(_ check: @escaping @Sendable (Set<String>) -> String?) {
        validator.withLock { $0 = check }
    }

    // MARK: Calling

    /// Calls plugin function `name` for `app`.
    /// - Returns: the function's first result.
    /// - Throws: ``ServiceError`` `FunctionNotFound` for an unknown name; the `LuaError` of the
    ///   run otherwise (runtime, timeout, memory, conversion).
    /// - Parameter inline: allow the caller's thread (see ``PluginExecutor``; benchmarks turn it off).
    func call(
        app: String, function name: String, arguments: [LuaValue], invocation: PluginInvocation,
        inline: Bool = true
    ) async throws -> LuaValue {
        reloadIfChanged()
        let set = current.withLock { $0 }
        guard set.exports[name] != nil else { throw ServiceError(.functionNotFound, "function not found: '\(name)'") }
        guard let pool = pools[app] else { throw ServiceError(.appNotFound, "cannot find app using Client App ID '\(app)'") }
        return try await PluginExecutor.shared.run(inline: inline) {
            try pool.withState(set) { state in
                try state.call(name, arguments: arguments, invocation: invocation)
            }
        }
    }

    // MARK: Reloading

    /// Reloads when the directory changed (dev) or SIGHUP arrived (production).
    func reloadIfChanged() {
        let signalled = reloadRequested.load(ordering: .relaxed) && reloadRequested.exchange(false, ordering: .relaxed)
        guard signalled || watcher?.changed() == true else { return }
        reload()
    }

    /// Reads the directory again. Files that load replace their old versions; a file that does
    /// not load keeps its last good version (or stays out if it is new) and the reason is
    /// logged. A result that would leave a configured name unresolved is not applied.
    func reload() {
        guard let directory else { return }
        reloadLock.withLock { _ in
            let old = current.withLock { $0 }
            let scanned: [PluginFile]
            do throws(PluginScanError) { scanned = try PluginSet.scan(directory) } catch {
                logger.error("plugins not reloaded: \(error.path) \(error.reason)")
                return
            }
            guard scanned != old.files else { return }
            var set = PluginSet(generation: old.generation + 1)
            guard let probe = try? PluginState(services: probeServices, limits: limits, generation: set.generation) else {
                logger.error("plugins not reloaded: cannot create a plugin state")
                return
            }
            for file in scanned {
                var chosen = file
                var names: [String]
                do {
                    names = try probe.load(file)
                } catch {
                    let previous = old.files.first { $0.fileName == file.fileName }
                    logger.error(
                        "plugin \(file.fileName) not reloaded: \(Self.describe(error))",
                        metadata: ["kept": "\(previous == nil ? "nothing (new file)" : "the last good version")"])
                    guard let previous, let again = try? probe.load(previous) else { continue }
                    chosen = previous
                    names = again
                }
                if let clash = names.first(where: { set.exports[$0] != nil }) {
                    logger.error("plugin \(file.fileName) not reloaded: exports '\(clash)', which \(set.exports[clash]!) exports too")
                    continue
                }
                for name in names { set.exports[name] = chosen.fileName }
                set.files.append(chosen)
            }
            if let check = validator.withLock({ $0 }), let problem = check(Set(set.exports.keys)) {
                logger.error("plugins not reloaded: \(problem)")
                return
            }
            current.withLock { $0 = set }
            for pool in pools.values { pool.drain() }
            logger.info("plugins reloaded", metadata: ["functions": "\(set.exports.keys.sorted().joined(separator: ","))"])
        }
    }
}
