// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// Suspending a task: called from `luaDispatch` on the calling coroutine, which then yields
/// with the host marker and the operation's id; `drive` resumes it when the operation ends.
extension LuaScheduler {
    /// Starts `operation` as a Swift Task (on ``LuaTaskExecutor``) and yields the calling
    /// coroutine until it finishes.
    func suspend(
        _ L: OpaquePointer, name: String, operation: @escaping @Sendable () async throws -> [LuaValue]
    ) throws -> Int32 {
        let id = try reserveOperation(L, name: name)
        let inbox = self.inbox
        inFlight += 1
        operations[id]?.swiftTask = Task(executorPreference: LuaTaskExecutor.shared) {
            do {
                inbox.post(Completion(operation: id, result: .success(try await operation())))
            } catch {
                inbox.post(Completion(operation: id, result: .failure(error)))
            }
        }
        return yieldMarker(L, id)
    }

    /// Yields the calling coroutine until operation `id` (a join) is resolved.
    func suspend(_ L: OpaquePointer, name: String, waitingFor id: LuaOperationID) throws -> Int32 {
        guard operations[id] != nil else { throw LuaRaise("'\(name)': unknown operation") }
        return yieldMarker(L, id)
    }

    /// Registers an operation of the running task, after checking that it can yield.
    func reserveOperation(_ L: OpaquePointer, name: String, _ operation: (TaskID) -> Operation = { Operation(task: $0) })
        throws -> LuaOperationID
    {
        guard let running = runningTask else {
            throw LuaRaise("async function '\(name)' called outside a running chunk")
        }
        guard lua_isyieldable(L) != 0 else {
            throw LuaRaise(
                "attempt to call async function '\(name)' from a context that cannot yield"
                    + " (a metamethod or a callback of a C function such as table.sort)")
        }
        let id = LuaOperationID(raw: operationIDs.next())
        operations[id] = operation(running)
        return id
    }

    /// Pushes the host marker and the operation's id as the yield's values. [-0, +2]
    private func yieldMarker(_ L: OpaquePointer, _ id: LuaOperationID) -> Int32 {
        authsh_pushhostmarker(L)
        lua_pushinteger(L, lua_Integer(id.raw))
        authsh_set_aux(L, 2)
        return Int32(AUTHSH_YIELD)
    }
}
