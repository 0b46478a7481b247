import CLua
import Glibc
import LuaShims
import Synchronization

/// Runs chunks as coroutines on the state's thread and resumes them when the Swift work they
/// wait for finishes.
///
/// An async Swift function starts a Task and yields its coroutine with a host marker; Lua's
/// `coroutine.resume`/`wrap` (replaced in C) pass such yields up to here, so a host call deep
/// inside user coroutines still reaches the scheduler. Completions arrive through a locked
/// inbox and a pipe, so the loop sleeps in `poll` and a kill (deadline, SIGINT) wakes it.
final class LuaScheduler {
    /// The owner. Not read while it deinitializes: `cancelAll` uses `L` only.
    unowned let state: LuaState
    /// The owner's main thread.
    let L: OpaquePointer
    private var tasks: [Int: TaskRecord] = [:]
    private var ready: [(task: Int, resumption: Resumption)] = []
    private var readyHead = 0
    private var operations: [Int: Operation] = [:]
    private var nextID = 0
    private var runningTask: Int?
    private var isRunning = false
    /// Tasks not finished yet, and Swift Tasks in flight (kept as counts: scanning every
    /// task on each wake made 10,000 tasks quadratic).
    private var liveTasks = 0
    private var inFlight = 0
    private let inbox: Inbox

    init(state: LuaState) {
        self.state = state
        L = state.L
        inbox = Inbox()
    }

    /// How a suspended coroutine continues.
    enum Resumption {
        /// First resume: its function and arguments are on its stack.
        case start(arguments: Int32)
        case results([LuaValue])
        case failure(any Error)
        /// The tasks it waited for have finished: push their results.
        case joined(tasks: [Int], style: WaitStyle)
    }

    /// How `wait` returns results: one task's results, the first result of each, or a table.
    enum WaitStyle { case single, firstOfEach, table }

    final class TaskRecord {
        let id: Int
        let thread: OpaquePointer
        let threadRef: Int32
        var suspendedOn: Int?
        var finished = false
        var resultsRef: Int32 = LUA_NOREF
        var failure: LuaError?
        var failureRef: Int32 = LUA_NOREF
        var observed = false
        var waiters: [Int] = []
        weak var handle: LuaTaskHandle?
        init(id: Int, thread: OpaquePointer, threadRef: Int32) {
            self.id = id
            self.thread = thread
            self.threadRef = threadRef
        }
    }

    struct Operation {
        var task: Int
        var swiftTask: Task<Void, Never>?
        var joins: [Int] = []
        /// Joined tasks not finished yet.
        var remaining = 0
        var style: WaitStyle = .single
    }

    // MARK: Running

    func run(_ function: LuaReference, arguments: [LuaValue], deadline: Duration?) throws -> LuaResults {
        guard !isRunning else { throw LuaError(.runtime, "a chunk is already running on this state") }
        isRunning = true
        purgeFinished()
        let generation = authsh_begin_run(L)
        var ticket: UInt64 = 0
        if let deadline {
            let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) * 1e-18
            ticket = authsh_watchdog_arm(L, generation, seconds)
            // No watchdog (it could not start, or no memory for the entry): a run whose
            // deadline nothing would enforce is refused rather than run unbounded.
            guard ticket != 0 else {
                authsh_end_run(L)
                isRunning = false
                throw LuaError(.memory, "cannot keep the time limit (the watchdog is unavailable)")
            }
        }
        authsh_set_wakefd(L, inbox.writeFD)
        defer {
            // Tasks still under way are cancelled first, while the deadline still holds: their
            // `__close` handlers run, under it.
            cancelAll()
            if ticket != 0 { authsh_watchdog_disarm(ticket) }
            authsh_end_run(L)
            authsh_set_wakefd(L, -1)
            isRunning = false
        }

        // The main task: function and arguments on a new thread.
        function.push(on: L)
        for argument in arguments { try LuaStack.push(argument, on: L) }
        let main = spawn(from: L, count: Int32(arguments.count) + 1)

        try drive(until: main)
        let record = tasks[main]!
        if let failure = record.failure { throw failure }
        // A failure nobody waited for fails the run too.
        if let unobserved = tasks.values.sorted(by: { $0.id < $1.id }).first(where: { $0.failure != nil && !$0.observed }) {
            throw unobserved.failure!
        }
        record.observed = true
        lua_rawgeti(L, clua_registryindex, lua_Integer(record.resultsRef))
        let count = rawLength(L, -1)
        return LuaResults(packed: LuaReference(popping: L, state: state), count: count)
    }

    /// The `n` field of a packed table. [-0, +0]
    private func rawLength(_ L: OpaquePointer, _ index: Int32) -> Int {
        let table = lua_absindex(L, index)
        lua_pushstring(L, "n")
        lua_rawget(L, table)
        defer { clua_pop(L, 1) }
        return Int(lua_tointegerx(L, -1, nil))
    }

    /// Resumes ready tasks and waits for completions until `main` and every other task is done
    /// (or `main` failed).
    private func drive(until main: Int) throws {
        while true {
            while readyHead < ready.count {
                let (id, resumption) = ready[readyHead]
                readyHead += 1
                resume(id, resumption)
                try checkKilled()
                if tasks[main]?.failure != nil { return }
            }
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
            if liveTasks == 0 { return }
            if inFlight == 0 {
                // Everyone waits for someone: no completion can ever come.
                let stuck = tasks.values.filter { !$0.finished }.map(\.id).sorted()
                for id in stuck {
                    fail(id, LuaError(.runtime, "deadlock: task \(id) waits for a task that can never finish"))
                }
                continue
            }
            inbox.wait()
            try checkKilled()
            for completion in inbox.take() {
                guard let operation = operations.removeValue(forKey: completion.operation) else { continue }
                inFlight -= 1
                guard
                    let record = tasks[operation.task], record.suspendedOn == completion.operation
                else { continue }
                switch completion.result {
                case .success(let values): ready.append((record.id, .results(values)))
                case .failure(let error): ready.append((record.id, .failure(error)))
                }
            }
        }
    }

    private func checkKilled() throws {
        switch authsh_killed(L) {
        case Int32(AUTHSH_KILL_TIMEOUT):
            throw LuaError(.timeout, "execution time limit exceeded", traceback: lastTraceback)
        case Int32(AUTHSH_KILL_INTERRUPT):
            throw LuaError(.interrupted, "interrupted!", traceback: lastTraceback)
        default: return
        }
    }

    private var lastTraceback: String?

    /// Creates a task from the function and `count - 1` arguments at the top of L (popped).
    func spawn(from L: OpaquePointer, count: Int32) -> Int {
        let thread = lua_newthread(L)!                           // stack: f, args..., thread
        authsh_mark_root(L)                                      // to Lua, a task is the main thread
        let threadRef = luaL_ref(L, clua_registryindex)          // stack: f, args...
        lua_xmove(L, thread, count)
        nextID += 1
        let record = TaskRecord(id: nextID, thread: thread, threadRef: threadRef)
        tasks[record.id] = record
        liveTasks += 1
        ready.append((record.id, .start(arguments: count - 1)))
        return record.id
    }

    private func resume(_ id: Int, _ resumption: Resumption) {
        guard let record = tasks[id], !record.finished else { return }
        let co = record.thread
        var nargs: Int32 = 0
        switch resumption {
        case .start(let arguments):
            nargs = arguments
        case .results(let values):
            guard lua_checkstack(co, Int32(clamping: values.count + 1)) != 0 else {
                lua_pushinteger(co, 1)
                LuaStack.pushString("too many results", on: co)
                nargs = 2
                break
            }
            lua_pushinteger(co, 0)
            nargs = 1
            for value in values {
                if (try? LuaStack.push(value, on: co)) == nil { lua_pushnil(co) }
                nargs += 1
            }
        case .failure(let error):
            let status = raise(error, on: co)
            lua_pushinteger(co, status == Int32(AUTHSH_RAISE_WHERE) ? 2 : 1)
            lua_rotate(co, -2, 1)
            nargs = 2
        case .joined(let ids, let style):
            nargs = pushJoined(ids, style: style, on: co)
        }
        record.suspendedOn = nil
        runningTask = id
        var nresults: Int32 = 0
        let status = authsh_hostresume(L, co, nargs, &nresults)
        runningTask = nil
        switch status {
        case LUA_YIELD:
            if nresults >= 2, authsh_ishostmarker(co, -nresults) != 0 {
                record.suspendedOn = Int(lua_tointegerx(co, -nresults + 1, nil))
                clua_pop(co, nresults)
            } else {
                clua_pop(co, nresults)
                fail(id, LuaError(.runtime, "attempt to yield from outside a coroutine"))
            }
        case LUA_OK:
            // Pack the results as {n = count, ...}. stack: r1...rn
            lua_createtable(co, nresults, 1)
            lua_rotate(co, -(nresults + 1), 1)                   // stack: t, r1...rn
            for m in stride(from: nresults, through: 1, by: -1) {
                lua_rawseti(co, -(m + 1), lua_Integer(m))
            }
            lua_pushinteger(co, lua_Integer(nresults))
            lua_setfield(co, -2, "n")
            record.resultsRef = luaL_ref(co, clua_registryindex)
            finish(record)
        default:
            lua_xmove(co, L, 1)                                  // the error object, onto L
            let error = describeError(status: status, thread: co)
            record.failureRef = luaL_ref(L, clua_registryindex)
            lastTraceback = error.traceback
            fail(id, error)
        }
    }

    /// Describes the error object at the top of the main stack (left there), raised in `thread`.
    private func describeError(status: Int32, thread: OpaquePointer) -> LuaError {
        let value = try? LuaStack.value(at: -1, on: L)
        var message: String
        if let text = LuaStack.text(at: -1, on: L) {
            message = text
        } else if state.isSandboxed {
            // No `__tostring`: the run is over, and its limits with it.
            message = "(error object is a \(String(cString: clua_typename(L, -1))) value)"
        } else {
            let ok = authsh_tostring(L, -1) == LUA_OK                   // stack: error, string
            let text = LuaStack.text(at: -1, on: L)
            clua_pop(L, 1)
            message = ok ? text ?? "?" : "(error object is a \(String(cString: clua_typename(L, -1))) value)"
        }
        authsh_traceback(L, thread, nil, 0)
        let traceback = LuaStack.text(at: -1, on: L)
        clua_pop(L, 1)
        let code: LuaError.Code
        switch (status, authsh_killed(L)) {
        case (_, Int32(AUTHSH_KILL_TIMEOUT)):
            code = .timeout
            message = "execution time limit exceeded"
        case (_, Int32(AUTHSH_KILL_INTERRUPT)):
            code = .interrupted
            message = "interrupted!"
        case (LUA_ERRMEM, _):
            code = .memory
            let limit = authsh_memory_limit(L)
            message = limit > 0 ? "not enough memory (the limit is \(limit >> 20) MiB)" : "not enough memory"
        default:
            code = .runtime
        }
        return LuaError(code, message, traceback: traceback, value: value)
    }

    private func finish(_ record: TaskRecord) {
        record.finished = true
        liveTasks -= 1
        // Runs the `__close` handlers of a task that failed, under the run's limits.
        authsh_resetthread(L, record.thread)
        luaL_unref(L, clua_registryindex, record.threadRef)
        for operation in record.waiters { resolveJoin(operation) }
        record.waiters.removeAll()
    }

    private func fail(_ id: Int, _ error: LuaError) {
        guard let record = tasks[id], !record.finished else { return }
        record.failure = error
        if record.failureRef == LUA_NOREF {
            LuaStack.pushString(error.message, on: L)
            record.failureRef = luaL_ref(L, clua_registryindex)
        }
        finish(record)
    }

    // MARK: Suspending (called from luaDispatch on the calling coroutine)

    /// Starts `operation` as a Swift Task and yields the calling coroutine until it finishes.
    func suspend(
        _ L: OpaquePointer, name: String, operation: @escaping @Sendable () async throws -> [LuaValue]
    ) throws -> Int32 {
        let id = try reserveOperation(L, name: name)
        let inbox = self.inbox
        inFlight += 1
        operations[id]!.swiftTask = Task(executorPreference: LuaTaskExecutor.shared) {
            do {
                inbox.post(Completion(operation: id, result: .success(try await operation())))
            } catch {
                inbox.post(Completion(operation: id, result: .failure(error)))
            }
        }
        return yieldMarker(L, id)
    }

    /// Yields the calling coroutine until operation `id` (a join) is resolved.
    func suspend(_ L: OpaquePointer, name: String, waitingFor id: Int) throws -> Int32 {
        guard operations[id] != nil else { throw LuaRaise("'\(name)': unknown operation") }
        return yieldMarker(L, id)
    }

    private func reserveOperation(_ L: OpaquePointer, name: String) throws -> Int {
        guard let running = runningTask else {
            throw LuaRaise("async function '\(name)' called outside a running chunk")
        }
        guard lua_isyieldable(L) != 0 else {
            throw LuaRaise(
                "attempt to call async function '\(name)' from a context that cannot yield"
                    + " (a metamethod or a callback of a C function such as table.sort)")
        }
        nextID += 1
        operations[nextID] = Operation(task: running)
        return nextID
    }

    private func yieldMarker(_ L: OpaquePointer, _ id: Int) -> Int32 {
        authsh_pushhostmarker(L)
        lua_pushinteger(L, lua_Integer(id))
        authsh_set_aux(L, 2)
        return Int32(AUTHSH_YIELD)
    }

    // MARK: Tasks from Lua (spawn / wait)

    /// `spawn(f, ...)`: a new task, started on the next scheduler turn.
    func spawnFromLua(_ L: OpaquePointer) throws -> LuaTaskHandle {
        guard isRunning else { throw LuaRaise("spawn: no chunk is running") }
        let id = spawn(from: L, count: lua_gettop(L))               // stack: f, args... (moved)
        let handle = LuaTaskHandle(id: id)
        tasks[id]!.handle = handle
        return handle
    }

    /// `wait(t, ...)`: returns at once when every task finished, else suspends the caller.
    func wait(_ L: OpaquePointer, ids: [Int], style: WaitStyle, name: String) throws -> LuaReturn {
        for id in ids {
            guard tasks[id] != nil else { throw LuaRaise("'\(name)': task \(id) is no longer known") }
            if id == runningTask { throw LuaRaise("'\(name)': a task cannot wait for itself") }
        }
        if ids.allSatisfy({ tasks[$0]!.finished }) {
            if let failed = ids.compactMap({ tasks[$0] }).first(where: { $0.failure != nil }) {
                failed.observed = true
                throw LuaRaise(failed.failure!.value ?? .string(LuaString(failed.failure!.message)))
            }
            return .pushed(pushJoined(ids, style: style, on: L, flag: false))
        }
        let operation = try reserveOperation(L, name: name)
        operations[operation]!.joins = ids
        operations[operation]!.style = style
        for id in ids where !tasks[id]!.finished {
            tasks[id]!.waiters.append(operation)
            operations[operation]!.remaining += 1
        }
        return .suspend(operation: operation)
    }

    private func resolveJoin(_ operation: Int) {
        guard var op = operations[operation] else { return }
        op.remaining -= 1
        operations[operation] = op
        guard op.remaining <= 0 else { return }
        operations[operation] = nil
        if tasks[op.task]?.suspendedOn == operation {
            ready.append((op.task, .joined(tasks: op.joins, style: op.style)))
        }
    }

    /// Pushes the joined tasks' results for a continuation (`flag`: with the leading status
    /// integer, and the first failure raised instead) or a direct return. Returns the count.
    @discardableResult
    private func pushJoined(_ ids: [Int], style: WaitStyle, on L: OpaquePointer, flag: Bool = true) -> Int32 {
        for id in ids { tasks[id]?.observed = true }
        if let failed = ids.compactMap({ tasks[$0] }).first(where: { $0.failure != nil }) {
            lua_pushinteger(L, 1)
            lua_rawgeti(L, clua_registryindex, lua_Integer(failed.failureRef))
            return 2
        }
        var count: Int32 = 0
        if flag {
            lua_pushinteger(L, 0)
            count = 1
        }
        switch style {
        case .single:
            let record = tasks[ids[0]]!
            lua_rawgeti(L, clua_registryindex, lua_Integer(record.resultsRef))   // stack: packed
            let n = Int32(rawLength(L, -1))
            lua_checkstack(L, n + 1)
            for i in 1...max(n, 1) where n > 0 { lua_rawgeti(L, -Int32(i), lua_Integer(i)) }
            clua_remove(L, -(n + 1))
            count += n
        case .firstOfEach:
            for id in ids {
                lua_rawgeti(L, clua_registryindex, lua_Integer(tasks[id]!.resultsRef))
                lua_rawgeti(L, -1, 1)
                clua_remove(L, -2)
                count += 1
            }
        case .table:
            lua_createtable(L, Int32(ids.count), 0)
            for (i, id) in ids.enumerated() {
                lua_rawgeti(L, clua_registryindex, lua_Integer(tasks[id]!.resultsRef))
                lua_rawgeti(L, -1, 1)
                clua_remove(L, -2)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
            count += 1
        }
        return count
    }

    // MARK: Cleanup

    /// Drops finished tasks nobody can wait for any more, and cancels in-flight work.
    func cancelAll() {
        for operation in operations.values { operation.swiftTask?.cancel() }
        operations.removeAll()
        inFlight = 0
        for record in tasks.values where !record.finished {
            record.finished = true
            liveTasks -= 1
            record.failure = LuaError(.runtime, "cancelled")
            // Its cancellation follows a failure already reported: it does not fail a later run
            // (the REPL's next line) as a failure nobody waited for; waiting for it still raises.
            record.observed = true
            // Its pending `__close` handlers run (as lua5.4 closes a coroutine); an error in
            // one is dropped, the run being over. After a kill they do not (authsh_resetthread).
            if authsh_resetthread(L, record.thread) != LUA_OK { lua_settop(record.thread, 0) }
            luaL_unref(L, clua_registryindex, record.threadRef)
        }
        ready.removeAll()
        readyHead = 0
        _ = inbox.take()
    }

    private func purgeFinished() {
        for (id, record) in tasks where record.finished && record.handle == nil {
            luaL_unref(L, clua_registryindex, record.resultsRef)
            luaL_unref(L, clua_registryindex, record.failureRef)
            tasks[id] = nil
        }
    }
}

/// A task handle, as Lua sees it (`spawn` returns one; `wait` takes them).
public final class LuaTaskHandle: LuaObject {
    public let id: Int
    init(id: Int) { self.id = id }
    public static let luaClass = LuaClass<LuaTaskHandle>("task", description: { "task \($0.id)" })
}

/// Completions from Swift Tasks, handed to the Lua thread.
final class Inbox: Sendable {
    let items = Mutex<[Completion]>([])
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            // No pipe (out of descriptors): `wait` polls the list every millisecond instead.
            fds = [-1, -1]
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    func post(_ completion: Completion) {
        let wasEmpty = items.withLock { items in
            items.append(completion)
            return items.count == 1
        }
        if wasEmpty && writeFD >= 0 { _ = Glibc.write(writeFD, "c", 1) }
    }

    func take() -> [Completion] {
        items.withLock { items in
            let all = items
            items.removeAll(keepingCapacity: true)
            return all
        }
    }

    /// Sleeps until a completion or a kill arrives.
    func wait() {
        if items.withLock({ !$0.isEmpty }) {
            authsh_drain(readFD)
            return
        }
        guard readFD >= 0 else {
            usleep(1000)
            return
        }
        var pfd = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, -1)
        authsh_drain(readFD)
    }
}

struct Completion: Sendable {
    let operation: Int
    let result: Result<[LuaValue], any Error>
}
