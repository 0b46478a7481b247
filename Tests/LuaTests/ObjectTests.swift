// SPDX-License-Identifier: Apache-2.0
import Lua
import Synchronization
import Testing

/// Counts live instances so tests can see `__gc` release them.
final class Counter: LuaObject {
    static let live = Atomic<Int>(0)
    let start: Int64
    init(start: Int64) {
        self.start = start
        Counter.live.add(1, ordering: .relaxed)
    }
    deinit { Counter.live.subtract(1, ordering: .relaxed) }

    static let luaClass = LuaClass<Counter>(
        "Counter",
        methods: ["plus": { counter, call in .one(.integer(counter.start + (try call.integer(2)))) }],
        properties: ["start": { .integer($0.start) }],
        description: { "Counter(\($0.start))" })
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct ObjectTests {
    @Test func methodsPropertiesTostringAndIdentity() throws {
        let lua = try LuaState()
        let counter = Counter(start: 40)
        try lua.setGlobal("c", .object(counter))
        try lua.setGlobal("same", .object(counter))
        let r = try lua.evaluate("return c:plus(2), c.start, tostring(c), c == same, c.missing")
        #expect(r == [42, 40, "Counter(40)", true, nil])
        #expect(try lua.evaluate("return getmetatable(c)") == [false])  // protected
        #expect { try lua.evaluate("return c.plus(1)", name: "=x") } throws: {
            ($0 as? LuaError)?.message == "x:1: bad argument #1 to 'plus' (Counter expected, got number)"
        }
        #expect { try lua.evaluate("return c:plus('z')", name: "=x") } throws: {
            ($0 as? LuaError)?.message == "x:1: bad argument #1 to 'plus' (number expected, got string)"
        }
    }

    @Test func garbageCollectionReleasesTheSwiftObject() throws {
        let before = Counter.live.load(ordering: .relaxed)
        let lua = try LuaState()
        try lua.setGlobal("c", .object(Counter(start: 1)))
        #expect(Counter.live.load(ordering: .relaxed) == before + 1)
        try lua.evaluate("c = nil; collectgarbage(); collectgarbage()")
        #expect(Counter.live.load(ordering: .relaxed) == before)
    }

    @Test func objectsComeBackToSwift() throws {
        let lua = try LuaState()
        let counter = Counter(start: 7)
        try lua.setGlobal("c", .object(counter))
        let back = try lua.evaluate("return c")
        guard case .object(let box) = back[0] else { Issue.record("not an object"); return }
        #expect(box.object === counter)
    }
}
