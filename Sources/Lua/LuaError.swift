// SPDX-License-Identifier: Apache-2.0
/// An error from running Lua code, or from moving a value between Lua and Swift.
public struct LuaError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; stable, so callers can branch on it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The chunk did not compile.
        public static let syntax = Code("syntax")
        /// The code raised an error.
        public static let runtime = Code("runtime")
        /// The code went past the state's memory limit.
        public static let memory = Code("memory")
        /// The code ran past its deadline.
        public static let timeout = Code("timeout")
        /// The code was interrupted (SIGINT).
        public static let interrupted = Code("interrupted")
        /// A value could not be converted between Lua and Swift.
        public static let conversion = Code("conversion")
        public var description: String { name }
    }

    public var code: Code
    /// One readable line (or the error object's `tostring`).
    public var message: String
    /// `stack traceback:` lines, when known.
    public var traceback: String?
    /// The raised value, when it converts to a `LuaValue` (error objects keep their fields).
    public var value: LuaValue?

    public init(_ code: Code, _ message: String, traceback: String? = nil, value: LuaValue? = nil) {
        self.code = code
        self.message = message
        self.traceback = traceback
        self.value = value
    }

    /// True when the chunk is incomplete (more input could complete it): the REPL continues.
    public var isIncompleteChunk: Bool { code == .syntax && message.hasSuffix("<eof>") }

    public var description: String { message }
}

/// Thrown by a Swift function to raise a Lua error with a given value.
public struct LuaRaise: Error, Sendable {
    public var value: LuaValue
    /// Prefix the caller's `file:line:` to a string value, as `error(msg)` and `luaL_error` do.
    public var withPosition: Bool
    public init(_ value: LuaValue, withPosition: Bool = false) {
        self.value = value
        self.withPosition = withPosition
    }
    /// A message raised with the caller's position, like `luaL_error`.
    public init(_ message: String) {
        self.init(.string(LuaString(message)), withPosition: true)
    }
}

/// Thrown by argument readers: becomes Lua's own `bad argument #n to 'f' (...)`.
public struct LuaArgumentError: Error, Sendable {
    public var index: Int32
    public var message: String
    public init(index: Int32, message: String) {
        self.index = index
        self.message = message
    }
}

/// Swift errors may carry a Lua value of their own (for example structured auth errors).
public protocol LuaErrorConvertible: Error {
    /// The value raised in Lua for this error.
    var luaValue: LuaValue { get }
}
