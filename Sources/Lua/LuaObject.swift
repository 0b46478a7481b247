// SPDX-License-Identifier: Apache-2.0
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
/// properties (`obj.p`) and `tostring`, each member with its description.
public struct LuaClass<Object: AnyObject & Sendable>: Sendable {
    public typealias Method = @Sendable (Object, LuaCall) throws -> LuaReturn
    public typealias Property = @Sendable (Object) throws -> LuaValue

    /// The metatable's `__name`, shown in `tostring` and in type errors (`User expected`).
    public var name: String
    /// What an object of the class is; Markdown.
    public var summary: String
    public var methods: [String: Method]
    public var properties: [String: Property]
    /// Every member's description, in the order the class lists them.
    public var documentation: [(name: String, doc: LuaDoc, isMethod: Bool)]
    public var description: (@Sendable (Object) -> String)?
    /// For completion: the class name of properties that hold objects (`emailPasswordAuth`:
    /// `"EmailPasswordAuth"`), so `app.emailPasswordAuth:` completes without calling anything.
    public var propertyClasses: [String: String]
    /// Answers reads of string keys that are neither methods nor properties (`user.functions.NAME`).
    public var fallback: (@Sendable (Object, String) throws -> LuaValue)?
    /// The description of what ``fallback`` answers, with the key as a script writes it (`NAME`).
    public var fallbackDoc: (key: String, doc: LuaDoc)?

    /// A class described member by member.
    /// - Parameters:
    ///   - name: the class's name in Lua.
    ///   - summary: what an object of it is.
    ///   - members: its methods and properties, in the order the reference lists them. A
    ///     property whose type names a class (`User?`) tells completion that class.
    ///   - description: `tostring` of an object.
    ///   - fallback: answers other string keys; `fallbackDoc` describes them.
    public init(
        _ name: String, summary: String, members: [LuaMember<Object>], description: (@Sendable (Object) -> String)? = nil,
        fallback: (key: String, doc: LuaDoc, read: @Sendable (Object, String) throws -> LuaValue)? = nil
    ) {
        self.init(name, description: description, fallback: fallback?.read)
        self.summary = summary
        self.fallbackDoc = fallback.map { ($0.key, $0.doc) }
        for member in members {
            documentation.append((member.name, member.doc, member.isMethod))
            switch member.kind {
            case .method(let body): methods[member.name] = body
            case .property(let read):
                properties[member.name] = read
                if let className = LuaMember<Object>.className(member.doc.type) { propertyClasses[member.name] = className }
            }
        }
    }

    /// A class with no descriptions (a host's internal objects and tests).
    public init(
        _ name: String, methods: [String: Method] = [:], properties: [String: Property] = [:],
        propertyClasses: [String: String] = [:], description: (@Sendable (Object) -> String)? = nil,
        fallback: (@Sendable (Object, String) throws -> LuaValue)? = nil
    ) {
        self.name = name
        self.summary = ""
        self.methods = methods
        self.properties = properties
        self.documentation = []
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

/// One method or property of a ``LuaClass``, with its description.
public struct LuaMember<Object: AnyObject & Sendable>: Sendable {
    enum Kind: Sendable {
        case method(LuaClass<Object>.Method)
        case property(LuaClass<Object>.Property)
    }

    public let name: String
    public let doc: LuaDoc
    let kind: Kind

    var isMethod: Bool {
        if case .method = kind { true } else { false }
    }

    /// `obj:name(...)`; `type` is its parameters after the object and its results.
    public static func method(
        _ name: String, _ type: String, _ summary: String, overloads: [String] = [], _ body: @escaping LuaClass<Object>.Method
    ) -> Self {
        Self(name: name, doc: LuaDoc(type, summary, overloads: overloads), kind: .method(body))
    }

    /// `obj.name`, read-only; `type` is the value's type.
    public static func property(_ name: String, _ type: String, _ summary: String, _ read: @escaping LuaClass<Object>.Property) -> Self {
        Self(name: name, doc: LuaDoc(type, summary), kind: .property(read))
    }

    /// The class a property's type names (`User` for `User?`), if it names one.
    static func className(_ type: String) -> String? {
        let name = type.hasSuffix("?") ? String(type.dropLast()) : type
        guard let first = name.first, first.isUppercase, name.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return name
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
