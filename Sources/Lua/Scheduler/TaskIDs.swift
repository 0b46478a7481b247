// SPDX-License-Identifier: Apache-2.0
/// A task of the scheduler: a chunk's main function, or one that `spawn` started.
struct TaskID: Hashable, Comparable, CustomStringConvertible {
    let raw: Int
    static func < (a: TaskID, b: TaskID) -> Bool { a.raw < b.raw }
    var description: String { String(raw) }
}

/// Something a suspended task waits for: an async Swift call, or a join (`wait`).
///
/// Public only because ``LuaReturn/suspend(operation:)`` carries one: hosts get them from the
/// scheduler, never make them.
public struct LuaOperationID: Hashable, Sendable {
    let raw: Int
}

/// Numbers ids of one kind from 1 (tasks and operations each have their own).
struct IDCounter {
    private var last = 0
    mutating func next() -> Int {
        last += 1
        return last
    }
}
