import CLua
import LuaShims

/// A Swift class that Lua sees as userdata with methods and properties.
///
/// Pushing the same object twice gives the same userdata (so `==` works); the userdata keeps
/// the object alive, and its `__gc` releases it.
public protocol LuaObject: AnyObject, Sendable {
    /// How the class appears in Lua: its name, methods and properties.
    static var luaClass: LuaClass<Self> { get }
}

/// The Lua face of a Swift class: metatable name, methods (`obj:m()`), read-only
/// properties (`obj.p`) and `tostring`.
public struct LuaClass<Object: AnyObject & Sendable>: Sendable {
    public typealias Method = @Sendable (Object, LuaCall) throws -> LuaReturn
    public typealias Property = @Sendable (Object) throws -> LuaValue

    /// The metatable's `__name`, shown in `tostring` and in type errors (`User expected`).
    public var name: String
    public var methods: [String: Method]
    public var properties: [String: Property]
    public var description: (@Sendable (Object) -> String)?
    /// For completion: the class name of properties that hold objects (`emailPasswordAuth`:
    /// `"EmailPasswordAuth"`), so `app.emailPasswordAuth:` completes without calling anything.
    public var propertyClasses: [String: String]
    /// Answers reads of string keys that are neither methods nor properties (`user.functions.NAME`).
    public var fallback: (@Sendable (Object, String) throws -> LuaValue)?

    public init(
        _ name: String, methods: [String: Method] = [:], properties: [String: Property] = [:],
        propertyClasses: [String: String] = [:], description: (@Sendable (Object) -> String)? = nil,
        fallback: (@Sendable (Object, String) throws -> LuaValue)? = nil
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.propertyClasses = propertyClasses
        self.description = description
        self.fallback = fallback
    }

    /// Member names and kinds, as the metatable's `__members` lists them (for completion).
    public var members: [String: String] {
        var all: [String: String] = [:]
        for name in properties.keys { all[name] = "property" }
        for name in methods.keys { all[name] = "method" }
        return all
    }
}

/// A type-erased Swift object inside a `LuaValue`.
public struct LuaObjectBox: Sendable, Hashable {
    public let object: any LuaObject
    public init(_ object: any LuaObject) { self.object = object }
    public static func == (a: LuaObjectBox, b: LuaObjectBox) -> Bool { a.object === b.object }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
}

extension LuaState {
    static let objectCacheKey = "authsh.objects"

    /// Pushes `object` as userdata, reusing the live userdata of the same object. [-0, +1, m]
    static func pushObject<T: LuaObject>(_ object: T, on L: OpaquePointer) {
        let key = Unmanaged.passUnretained(object).toOpaque()
        // stack: cache
        if lua_getfield(L, clua_registryindex, LuaState.objectCacheKey) != LUA_TTABLE {
            clua_pop(L, 1)
            clua_newtable(L)
            clua_newtable(L)
            lua_pushstring(L, "v")
            lua_setfield(L, -2, "__mode")
            lua_setmetatable(L, -2)
            lua_pushvalue(L, -1)
            lua_setfield(L, clua_registryindex, LuaState.objectCacheKey)
        }
        lua_pushlightuserdata(L, key)
        if lua_rawget(L, -2) == LUA_TUSERDATA {  // stack: cache, ud
            clua_remove(L, -2)
            return
        }
        clua_pop(L, 1)
        pushMetatable(for: T.self, on: L)  // stack: cache, mt
        authsh_pushobject(L, Unmanaged.passRetained(object as AnyObject).toOpaque())  // stack: cache, ud
        lua_pushlightuserdata(L, key)
        lua_pushvalue(L, -2)
        lua_rawset(L, -4)  // cache[key] = ud
        clua_remove(L, -2)  // stack: ud
    }

    /// Pushes the metatable of T, building it on first use. [-0, +1, m]
    static func pushMetatable<T: LuaObject>(for type: T.Type, on L: OpaquePointer) {
        let cls = T.luaClass
        guard luaL_newmetatable(L, cls.name) != 0 else { return }  // stack: mt (existing or new)
        authsh_setgc(L)
        lua_pushboolean(L, 0)
        lua_setfield(L, -2, "__metatable")
        // Methods: one Lua function each, in __methods.
        lua_createtable(L, 0, Int32(cls.methods.count))
        for (name, method) in cls.methods {
            let fn = LuaFunction(name) { call in
                let object = try call.object(1, as: T.self)
                return try method(object, call)
            }
            LuaStack.pushFunction(fn, on: L)
            lua_setfield(L, -2, name)
        }
        lua_setfield(L, -2, "__methods")
        // Members for completion: name -> "method" | "property".
        lua_createtable(L, 0, Int32(cls.members.count))
        for (name, kind) in cls.members {
            lua_pushstring(L, kind)
            lua_setfield(L, -2, name)
        }
        lua_setfield(L, -2, "__members")
        lua_createtable(L, 0, Int32(cls.propertyClasses.count))
        for (name, className) in cls.propertyClasses {
            lua_pushstring(L, className)
            lua_setfield(L, -2, name)
        }
        lua_setfield(L, -2, "__fields")
        let properties = cls.properties
        let fallback = cls.fallback
        let index = LuaFunction("__index") { call in
            let object = try call.object(1, as: T.self)
            let L = call.L
            // A method? stack: obj, key
            lua_getmetatable(L, 1)
            lua_pushstring(L, "__methods")
            lua_rawget(L, -2)
            lua_pushvalue(L, 2)
            if lua_rawget(L, -2) != LUA_TNIL { return .pushed(1) }
            guard lua_type(L, 2) == LUA_TSTRING, let key = try? call.string(2) else { return .none }
            if let getter = properties[key] { return .one(try getter(object)) }
            if let fallback { return .one(try fallback(object, key)) }
            return .none
        }
        LuaStack.pushFunction(index, on: L)
        lua_setfield(L, -2, "__index")
        let describe = cls.description
        let name = cls.name
        let tostring = LuaFunction("__tostring") { call in
            let object = try call.object(1, as: T.self)
            if let describe { return .one(.string(LuaString(describe(object)))) }
            return .one(.string(LuaString("\(name): \(Unmanaged.passUnretained(object).toOpaque())")))
        }
        LuaStack.pushFunction(tostring, on: L)
        lua_setfield(L, -2, "__tostring")
    }
}

extension LuaState {
    /// Builds the metatable of T now, so completion knows T's members before the first object
    /// of T is pushed (`app.emailPasswordAuth:` completes without a call).
    public func registerClass<T: LuaObject>(_ type: T.Type) {
        LuaState.pushMetatable(for: type, on: L)
        clua_pop(L, 1)
    }
}
