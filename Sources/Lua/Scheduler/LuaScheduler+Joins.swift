// SPDX-License-Identifier: Apache-2.0
import CLua

/// Tasks from Lua: `spawn` starts one, `wait` joins one or several.
extension LuaScheduler {
    /// `spawn(f, ...)`: a new task, started on the next scheduler turn.
    func spawnFromLua(_ L: OpaquePointer) throws -> LuaTaskHandle {
        guard isRunning else { throw LuaRaise("spawn: no chunk is running") }
        let record = try spawn(from: L, count: lua_gettop(L))  // stack: f, args... (moved)
        let handle = LuaTaskHandle(task: record.id)
        record.handle = handle
        return handle
    }

    /// `wait(t, ...)`: returns at once when every task finished, else suspends the caller.
    func wait(_ L: OpaquePointer, handles: [LuaTaskHandle], style: WaitStyle, name: String) throws -> LuaReturn {
        let records = try handles.map { handle in
            guard let record = tasks[handle.task] else { throw LuaRaise("'\(name)': task \(handle.id) is no longer known") }
            if handle.task == runningTask { throw LuaRaise("'\(name)': a task cannot wait for itself") }
            return record
        }
        let pending = records.filter { !$0.finished }
        if pending.isEmpty {
            for record in records { record.observed = true }
            if let failure = records.lazy.compactMap(\.failure).first {
                throw LuaRaise(failure.value ?? .string(LuaString(failure.message)))
            }
            return .pushed(try pushJoined(records, style: style, on: L, flag: false))
        }
        let operation = try reserveOperation(L, name: name) { task in
            Operation(task: task, joins: records, remaining: pending.count, style: style)
        }
        for record in pending { record.waiters.append(operation) }
        return .suspend(operation: operation)
    }

    /// One of the joined tasks finished: the waiting task is ready once all have.
    func resolveJoin(_ id: LuaOperationID) {
        guard var operation = operations[id] else { return }
        operation.remaining -= 1
        guard operation.remaining <= 0 else {
            operations[id] = operation
            return
        }
        operations[id] = nil
        if tasks[operation.task]?.suspendedOn == id {
            ready.append((operation.task, .joined(operation.joins, style: operation.style)))
        }
    }

    /// Pushes the joined tasks' results for a continuation (`flag`: with the leading status
    /// integer, and the first failure's value after a 1 instead) or a direct return. Returns
    /// the count.
    static let tooManyResults = "'wait': too many results for the Lua stack"

    /// Throws, having pushed nothing, when L's stack cannot grow to hold them.
    func pushJoined(_ records: [TaskRecord], style: WaitStyle, on L: OpaquePointer, flag: Bool = true) throws(LuaRaise) -> Int32 {
        let tooMany = LuaRaise(Self.tooManyResults)
        // Room for the flag, a failure's value, and the largest of each style's pushes below.
        let widest = style == .firstOfEach ? records.count : 1
        guard lua_checkstack(L, Int32(clamping: widest + 3)) != 0 else { throw tooMany }
        for record in records { record.observed = true }
        if let failed = records.first(where: { $0.failure != nil }) {
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
            guard let record = records.first else { return count }
            lua_rawgeti(L, clua_registryindex, lua_Integer(record.resultsRef))  // stack: packed
            let n = Int32(Self.packedCount(L, -1))
            guard lua_checkstack(L, n + 1) != 0 else {
                clua_pop(L, count + 1)
                throw tooMany
            }
            for i in 1...max(n, 1) where n > 0 { lua_rawgeti(L, -Int32(i), lua_Integer(i)) }
            clua_remove(L, -(n + 1))
            count += n
        case .firstOfEach:
            for record in records {
                pushFirstResult(of: record, on: L)
                count += 1
            }
        case .table:
            lua_createtable(L, Int32(records.count), 0)
            for (i, record) in records.enumerated() {
                pushFirstResult(of: record, on: L)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
            count += 1
        }
        return count
    }

    /// [-0, +1]
    private func pushFirstResult(of record: TaskRecord, on L: OpaquePointer) {
        lua_rawgeti(L, clua_registryindex, lua_Integer(record.resultsRef))
        lua_rawgeti(L, -1, 1)
        clua_remove(L, -2)
    }
}
