// SPDX-License-Identifier: Apache-2.0
import CLua

/// A Swift function that Lua can call.
///
/// The body reads its arguments from a `LuaCall` and returns a `LuaReturn`. It never raises a
/// Lua error itself: it throws, and the C trampoline raises after the Swift frame has returned.
public struct LuaFunction: Sendable, Hashable {
    let box: FunctionBox
    /// The name used in error messages when Lua cannot tell how the function was called.
    public var name: String { box.name }
    /// What a script is told about it; nil for the host's own helpers (`__index`).
    public var doc: LuaDoc? { box.doc }

    /// - Parameters:
    ///   - name: the name in argument errors (`bad argument #1 to 'name' ...`).
    ///   - body: reads the arguments and returns the results; throws to raise.
    public init(_ name: String, _ body: @escaping @Sendable (LuaCall) throws -> LuaReturn) {
        self.box = FunctionBox(name: name, doc: nil, body: body)
    }

    /// A function a script can reach, with its description.
    /// - Parameters:
    ///   - name: the path a script calls it by (`auth.sleep`); argument errors name it.
    ///   - type: its parameters and results (see ``LuaDoc/type``).
    ///   - summary: what it does.
    ///   - overloads: other ways to call it.
    ///   - body: reads the arguments and returns the results; throws to raise.
    public init(
        _ name: String, _ type: String, _ summary: String, overloads: [String] = [],
        _ body: @escaping @Sendable (LuaCall) throws -> LuaReturn
    ) {
        self.box = FunctionBox(name: name, doc: LuaDoc(type, summary, overloads: overloads), body: body)
    }

    /// The same body under another name and description (`app:login` shares `login`'s).
    public func named(_ name: String, doc: LuaDoc? = nil) -> LuaFunction {
        LuaFunction(box: FunctionBox(name: name, doc: doc ?? box.doc, body: box.body))
    }

    init(box: FunctionBox) { self.box = box }

    public static func == (a: LuaFunction, b: LuaFunction) -> Bool { a.box === b.box }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
}

/// What a Swift function gives back to Lua.
public enum LuaReturn {
    /// No results.
    case none
    /// One result.
    case one(LuaValue)
    /// Several results.
    case values([LuaValue])
    /// The body pushed this many results itself (through `LuaCall.push`).
    case pushed(Int32)
    /// Suspend the calling coroutine until the operation finishes; its values are the results.
    /// Runs as a Swift Task; needs a running scheduler and a context that can yield.
    case async(@Sendable () async throws -> [LuaValue])
    /// Suspend until the scheduler resolves `operation` (used by `wait`).
    case suspend(operation: LuaOperationID)
}

/// The final class the trampoline reaches through an `Unmanaged` pointer.
final class FunctionBox: Sendable {
    let name: String
    let doc: LuaDoc?
    let body: @Sendable (LuaCall) throws -> LuaReturn
    init(name: String, doc: LuaDoc?, body: @escaping @Sendable (LuaCall) throws -> LuaReturn) {
        self.name = name
        self.doc = doc
        self.body = body
    }
}
