// SPDX-License-Identifier: Apache-2.0
import CLua

/// A task: its coroutine, what it waits for, and how it ended.
///
/// Results and error objects stay in the registry (as references) until the scheduler drops
/// the task, so `wait` can return them to Lua as they were.
final class TaskRecord {
    let id: TaskID
    /// The coroutine; kept alive by `threadRef` until the task finishes.
    let thread: OpaquePointer
    let threadRef: Int32
    /// The operation the task is suspended on, nil while it runs or is ready.
    var suspendedOn: LuaOperationID?
    var finished = false
    /// Its results packed as `{n = count, ...}`, once it returned.
    var resultsRef: Int32 = LUA_NOREF
    var failure: LuaError?
    /// The raised value (or its message), once it failed.
    var failureRef: Int32 = LUA_NOREF
    /// Someone waited for it (or will be told of its failure): a failure nobody observed
    /// fails the run.
    var observed = false
    /// Joins that wait for it.
    var waiters: [LuaOperationID] = []
    /// The Lua handle `spawn` returned; while it lives, the task is kept for a later `wait`.
    weak var handle: LuaTaskHandle?

    init(id: TaskID, thread: OpaquePointer, threadRef: Int32) {
        self.id = id
        self.thread = thread
        self.threadRef = threadRef
    }
}

/// How a suspended coroutine continues.
enum Resumption {
    /// First resume: its function and arguments are on its stack.
    case start(arguments: Int32)
    case results([LuaValue])
    case failure(any Error)
    /// The tasks it waited for have finished: push their results.
    case joined([TaskRecord], style: WaitStyle)
}

/// How `wait` returns results: one task's results, the first result of each, or a table.
enum WaitStyle { case single, firstOfEach, table }

/// What a suspended task waits for.
struct Operation {
    /// The task that waits.
    let task: TaskID
    /// An async call's Swift Task (cancelled with the run).
    var swiftTask: Task<Void, Never>?
    /// A join's tasks, in the order `wait` named them.
    var joins: [TaskRecord] = []
    /// Joined tasks not finished yet.
    var remaining = 0
    var style: WaitStyle = .single
}

/// A task handle, as Lua sees it (`spawn` returns one; `wait` takes them).
public final class LuaTaskHandle: LuaObject {
    let task: TaskID
    /// The task's number (unique within its state).
    public var id: Int { task.raw }
    init(task: TaskID) { self.task = task }
    public static let luaClass = LuaClass<LuaTaskHandle>(
        "task", summary: "A task started by `spawn`; `wait` gives its results. `tostring`: `task N`.", members: [],
        description: { "task \($0.id)" })
}
