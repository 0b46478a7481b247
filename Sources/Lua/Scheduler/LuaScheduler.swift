// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// Runs chunks as coroutines on the state's thread and resumes them when the Swift work they
/// wait for finishes.
///
/// An async Swift function starts a Task and yields its coroutine with a host marker; Lua's
/// `coroutine.resume`/`wrap` (replaced in C) pass such yields up to here, so a host call deep
/// inside user coroutines still reaches the scheduler. Completions arrive through the
/// ``Inbox``, so the loop sleeps in `poll` and a kill (deadline, SIGINT) wakes it.
///
/// The parts, one file each: this loop (run, resume, finish); `+Suspend` (async calls and the
/// host yield); `+Joins` (`spawn` and `wait`); `+Errors` (what a failure or a kill becomes);
/// ``TaskRecord`` and ``Operation`` (what is known of a task and of what it waits for);
/// ``Inbox``; ``LuaTaskExecutor`` (where the async calls run).
final class LuaScheduler {
    /// The owner. Not read while it deinitializes: `cancelAll` uses `L` only.
    unowned let state: LuaState
    /// The owner's main thread.
    let L: OpaquePointer
    var tasks: [TaskID: TaskRecord] = [:]
    /// Tasks to resume, in order; `readyHead` is the next one (a queue without shifting).
    var ready: [(task: TaskID, resumption: Resumption)] = []
    var readyHead = 0
    var operations: [LuaOperationID: Operation] = [:]
    var taskIDs = IDCounter()
    var operationIDs = IDCounter()
    /// The task whose coroutine runs now (async calls and joins belong to it).
    var runningTask: TaskID?
    var isRunning = false
    /// Tasks not finished yet, and Swift Tasks in flight (kept as counts: scanning every
    /// task on each wake made 10,000 tasks quadratic).
    var liveTasks = 0
    var inFlight = 0
    let inbox = Inbox()
    /// The traceback of the last task that failed, for a kill reported after it.
    var lastTraceback: String?

    init(state: LuaState) {
        self.state = state
        L = state.L
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
        let base = lua_gettop(L)
        let main: TaskRecord
        do {
            function.push(on: L)
            for argument in arguments { try LuaStack.push(argument, on: L) }
            main = try spawn(from: L, count: Int32(arguments.count) + 1)
        } catch {
            lua_settop(L, base)
            throw error
        }

        try drive(until: main)
        if let failure = main.failure { throw failure }
        // A failure nobody waited for fails the run too.
        let unobserved = tasks.values.filter { !$0.observed }.sorted { $0.id < $1.id }
        if let failure = unobserved.lazy.compactMap(\.failure).first { throw failure }
        main.observed = true
        lua_rawgeti(L, clua_registryindex, lua_Integer(main.resultsRef))
        let count = Self.packedCount(L, -1)
        return LuaResults(packed: LuaReference(popping: L, state: state), count: count)
    }

    /// The `n` field of a packed table. [-0, +0]
    static func packedCount(_ L: OpaquePointer, _ index: Int32) -> Int {
        let table = lua_absindex(L, index)
        lua_pushstring(L, "n")
        lua_rawget(L, table)
        defer { clua_pop(L, 1) }
        return Int(lua_tointegerx(L, -1, nil))
    }

    /// Resumes ready tasks and waits for completions until `main` and every other task is done
    /// (or `main` failed).
    private func drive(until main: TaskRecord) throws {
        while true {
            while readyHead < ready.count {
                let (id, resumption) = ready[readyHead]
                readyHead += 1
                resume(id, resumption)
                try checkKilled()
                if main.failure != nil { return }
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
                guard let record = tasks[operation.task], record.suspendedOn == completion.operation else { continue }
                switch completion.result {
                case .success(let values): ready.append((record.id, .results(values)))
                case .failure(let error): ready.append((record.id, .failure(error)))
                }
            }
        }
    }

    /// Creates a task from the function and `count - 1` arguments at the top of L (popped),
    /// ready to start on the next turn. Throws, leaving L as it was, when the new thread's
    /// stack cannot hold them (a new thread has room for `LUA_MINSTACK` values only: moving
    /// more without growing it first writes past its end).
    func spawn(from L: OpaquePointer, count: Int32) throws -> TaskRecord {
        // The thread, and what authsh_mark_root pushes above it.
        guard lua_checkstack(L, 5) != 0 else { throw LuaError(.memory, "no room on the Lua stack to start a task") }
        // Never nil: Lua raises on allocation failure (and the cap is off while the host runs).
        let thread = lua_newthread(L)!  // stack: f, args..., thread
        guard lua_checkstack(thread, count + 1) != 0 else {
            clua_pop(L, 1)  // stack: f, args...
            throw LuaError(.memory, "too many arguments for a task (\(count - 1))")
        }
        authsh_mark_root(L)  // to Lua, a task is the main thread
        let threadRef = luaL_ref(L, clua_registryindex)  // stack: f, args...
        lua_xmove(L, thread, count)
        let record = TaskRecord(id: TaskID(raw: taskIDs.next()), thread: thread, threadRef: threadRef)
        tasks[record.id] = record
        liveTasks += 1
        ready.append((record.id, .start(arguments: count - 1)))
        return record
    }

    private func resume(_ id: TaskID, _ resumption: Resumption) {
        guard let record = tasks[id], !record.finished else { return }
        let co = record.thread
        let nargs = push(resumption, on: co)
        record.suspendedOn = nil
        runningTask = id
        var nresults: Int32 = 0
        let status = authsh_hostresume(L, co, nargs, &nresults)
        runningTask = nil
        switch status {
        case LUA_YIELD:
            if nresults >= 2, authsh_ishostmarker(co, -nresults) != 0 {
                record.suspendedOn = LuaOperationID(raw: Int(lua_tointegerx(co, -nresults + 1, nil)))
                clua_pop(co, nresults)
            } else {
                clua_pop(co, nresults)
                fail(id, LuaError(.runtime, "attempt to yield from outside a coroutine"))
            }
        case LUA_OK:
            // Pack the results as {n = count, ...}. stack: r1...rn
            lua_createtable(co, nresults, 1)
            lua_rotate(co, -(nresults + 1), 1)  // stack: t, r1...rn
            for m in stride(from: nresults, through: 1, by: -1) {
                lua_rawseti(co, -(m + 1), lua_Integer(m))
            }
            lua_pushinteger(co, lua_Integer(nresults))
            lua_setfield(co, -2, "n")
            record.resultsRef = luaL_ref(co, clua_registryindex)
            finish(record)
        default:
            lua_xmove(co, L, 1)  // the error object, onto L
            let error = describeError(status: status, thread: co)
            record.failureRef = luaL_ref(L, clua_registryindex)
            lastTraceback = error.traceback
            fail(id, error)
        }
    }

    /// Pushes what the coroutine resumes with; returns the count. A continuation reads a
    /// leading status: 0 and the results, 1 and an error to raise, 2 and one to raise with
    /// its position.
    private func push(_ resumption: Resumption, on co: OpaquePointer) -> Int32 {
        switch resumption {
        case .start(let arguments):
            return arguments
        case .results(let values):
            guard lua_checkstack(co, Int32(clamping: values.count + 1)) != 0 else {
                lua_pushinteger(co, 1)
                LuaStack.pushString("too many results", on: co)
                return 2
            }
            lua_pushinteger(co, 0)
            for value in values {
                if (try? LuaStack.push(value, on: co)) == nil { lua_pushnil(co) }
            }
            return Int32(values.count) + 1
        case .failure(let error):
            let status = raise(error, on: co)
            lua_pushinteger(co, status == Int32(AUTHSH_RAISE_WHERE) ? 2 : 1)
            lua_rotate(co, -2, 1)
            return 2
        case .joined(let records, let style):
            do {
                return try pushJoined(records, style: style, on: co)
            } catch {
                lua_pushinteger(co, 1)
                LuaStack.pushString(Self.tooManyResults, on: co)
                return 2
            }
        }
    }

    func finish(_ record: TaskRecord) {
        record.finished = true
        liveTasks -= 1
        // Runs the `__close` handlers of a task that failed, under the run's limits.
        authsh_resetthread(L, record.thread)
        luaL_unref(L, clua_registryindex, record.threadRef)
        for operation in record.waiters { resolveJoin(operation) }
        record.waiters.removeAll()
    }

    func fail(_ id: TaskID, _ error: LuaError) {
        guard let record = tasks[id], !record.finished else { return }
        record.failure = error
        if record.failureRef == LUA_NOREF {
            LuaStack.pushString(error.message, on: L)
            record.failureRef = luaL_ref(L, clua_registryindex)
        }
        finish(record)
    }

    // MARK: Cleanup

    /// Cancels in-flight work and every task not finished (their `__close` handlers run).
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

    /// Drops finished tasks nobody can wait for any more (no Lua handle holds them).
    private func purgeFinished() {
        for (id, record) in tasks where record.finished && record.handle == nil {
            luaL_unref(L, clua_registryindex, record.resultsRef)
            luaL_unref(L, clua_registryindex, record.failureRef)
            tasks[id] = nil
        }
    }
}
