// SPDX-License-Identifier: Apache-2.0 AND MIT
// The sandbox's versions of library functions that would otherwise escape its limits.
//
// The deadline stops Lua code through a count hook, and the memory cap through the allocator.
// Three kinds of standard functions get around one or the other:
//
// - C loops whose length the plugin chooses and whose steps need not enter the VM (so the
//   hook never fires): table.insert, remove, move, concat and sort over a huge `__len` or
//   range, and string.rep of an empty string a billion times. Here they look at the kill
//   switch every CHECK_EVERY steps (and string.rep of nothing returns at once).
// - Lua code that Lua itself runs with hooks off: finalizers (`__gc`, refused by
//   setmetatable: nothing in the sandbox can make an object finalizable) and an xpcall
//   message handler called for the kill error, from inside the hook (the handler is wrapped:
//   once the run is killed, the error passes through unhandled).
// - `__close` handlers run when a dead coroutine is reset: see authsh_resetthread.
//
// The table functions are Lua 5.4.4's ltablib.c (MIT licence, Copyright (C) 1994-2022
// Lua.org, PUC-Rio) with those checks added; their behaviour is otherwise the same.
#include "luashims.h"
#include "sandboxlib.h"

#include <limits.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

/// Loop steps between two looks at the kill switch (a look takes an uncontended lock).
#define CHECK_EVERY 1024

#define CHECK_STEP(L, counter) \
    do { \
        if ((++(counter) & (CHECK_EVERY - 1)) == 0) authsh_checkkill(L); \
    } while (0)

// MARK: - setmetatable and xpcall

static int safe_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc metamethods are not allowed in the sandbox");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));                 // stack: t, mt, setmetatable
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/// The message handler xpcall really installs: the plugin's handler, unless the run was
/// killed (then Lua calls it from inside the kill hook, where no hook could stop it).
static int guarded_handler(lua_State *L) {
    if (authsh_killed(L) != AUTHSH_KILL_NONE) return 1;  // the error object, unhandled
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finishpcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int safe_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);                                     // stack: f, guard, args...
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);                                   // stack: f, guard, true, f, args...
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finishpcall);
    return finishpcall(L, status, 2);
}

// MARK: - string.rep

static int safe_rep(lua_State *L) {
    size_t l, lsep;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || l + lsep == 0) {  // nothing to copy, however many times
        lua_pushliteral(L, "");
        return 1;
    }
    // Otherwise the result is allocated whole before the copy loop: the memory cap bounds it.
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

// MARK: - table (ltablib.c with kill checks)

#define TAB_R 1
#define TAB_W 2
#define TAB_L 4
#define TAB_RW (TAB_R | TAB_W)
#define aux_getn(L, n, w) (checktab(L, n, (w) | TAB_L), luaL_len(L, n))

static int checkfield(lua_State *L, const char *key, int n) {
    lua_pushstring(L, key);
    return (lua_rawget(L, -n) != LUA_TNIL);
}

static void checktab(lua_State *L, int arg, int what) {
    if (lua_type(L, arg) != LUA_TTABLE) {
        int n = 1;
        if (lua_getmetatable(L, arg) && (!(what & TAB_R) || checkfield(L, "__index", ++n)) &&
            (!(what & TAB_W) || checkfield(L, "__newindex", ++n)) &&
            (!(what & TAB_L) || checkfield(L, "__len", ++n))) {
            lua_pop(L, n);
        } else {
            luaL_checktype(L, arg, LUA_TTABLE);
        }
    }
}

static int tinsert(lua_State *L) {
    lua_Integer pos;
    lua_Integer e = aux_getn(L, 1, TAB_RW);
    unsigned steps = 0;
    e = luaL_intop(+, e, 1);
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3: {
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            CHECK_STEP(L, steps);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int tremove(lua_State *L) {
    lua_Integer size = aux_getn(L, 1, TAB_RW);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    unsigned steps = 0;
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 1, "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        CHECK_STEP(L, steps);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    unsigned steps = 0;
    checktab(L, 1, TAB_R);
    checktab(L, tt, TAB_W);
    if (e >= f) {
        lua_Integer n, i;
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (i = 0; i < n; i++) {
                CHECK_STEP(L, steps);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (i = n - 1; i >= 0; i--) {
                CHECK_STEP(L, steps);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

static void addfield(lua_State *L, luaL_Buffer *b, lua_Integer i) {
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
        luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1),
                   (LUAI_UACINT)i);
    luaL_addvalue(b);
}

static int tconcat(lua_State *L) {
    luaL_Buffer b;
    lua_Integer last = aux_getn(L, 1, TAB_R);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    unsigned steps = 0;
    last = luaL_optinteger(L, 4, last);
    luaL_buffinit(L, &b);
    for (; i < last; i++) {
        CHECK_STEP(L, steps);
        addfield(L, &b, i);
        luaL_addlstring(&b, sep, lsep);
    }
    if (i == last) addfield(L, &b, i);
    luaL_pushresult(&b);
    return 1;
}

typedef unsigned int IdxT;
#define RANLIMIT 100u

static unsigned int randomize_pivot(void) {
    clock_t c = clock();
    time_t t = time(NULL);
    return (unsigned int)c + (unsigned int)t;
}

static void set2(lua_State *L, IdxT i, IdxT j) {
    lua_seti(L, 1, i);
    lua_seti(L, 1, j);
}

static int sort_comp(lua_State *L, int a, int b) {
    if (lua_isnil(L, 2)) return lua_compare(L, a, b, LUA_OPLT);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a - 1);
    lua_pushvalue(L, b - 2);
    lua_call(L, 2, 1);
    int res = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return res;
}

static IdxT partition(lua_State *L, IdxT lo, IdxT up, unsigned *steps) {
    IdxT i = lo;
    IdxT j = up - 1;
    for (;;) {
        while ((void)lua_geti(L, 1, ++i), sort_comp(L, -1, -2)) {
            CHECK_STEP(L, *steps);
            if (i == up - 1) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        while ((void)lua_geti(L, 1, --j), sort_comp(L, -3, -1)) {
            CHECK_STEP(L, *steps);
            if (j < i) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        if (j < i) {
            lua_pop(L, 1);
            set2(L, up - 1, i);
            return i;
        }
        CHECK_STEP(L, *steps);
        set2(L, i, j);
    }
}

static IdxT choose_pivot(IdxT lo, IdxT up, unsigned int rnd) {
    IdxT r4 = (up - lo) / 4;
    return rnd % (r4 * 2) + (lo + r4);
}

static void auxsort(lua_State *L, IdxT lo, IdxT up, unsigned int rnd, unsigned *steps) {
    while (lo < up) {
        IdxT p, n;
        CHECK_STEP(L, *steps);
        lua_geti(L, 1, lo);
        lua_geti(L, 1, up);
        if (sort_comp(L, -1, -2)) set2(L, lo, up);
        else lua_pop(L, 2);
        if (up - lo == 1) return;
        if (up - lo < RANLIMIT || rnd == 0) p = (lo + up) / 2;
        else p = choose_pivot(lo, up, rnd);
        lua_geti(L, 1, p);
        lua_geti(L, 1, lo);
        if (sort_comp(L, -2, -1)) {
            set2(L, p, lo);
        } else {
            lua_pop(L, 1);
            lua_geti(L, 1, up);
            if (sort_comp(L, -1, -2)) set2(L, p, up);
            else lua_pop(L, 2);
        }
        if (up - lo == 2) return;
        lua_geti(L, 1, p);
        lua_pushvalue(L, -1);
        lua_geti(L, 1, up - 1);
        set2(L, p, up - 1);
        p = partition(L, lo, up, steps);
        if (p - lo < up - p) {
            auxsort(L, lo, p - 1, rnd, steps);
            n = p - lo;
            lo = p + 1;
        } else {
            auxsort(L, p + 1, up, rnd, steps);
            n = up - p;
            up = p - 1;
        }
        if ((up - lo) / 128 > n) rnd = randomize_pivot();
    }
}

static int tsort(lua_State *L) {
    lua_Integer n = aux_getn(L, 1, TAB_RW);
    if (n > 1) {
        unsigned steps = 0;
        luaL_argcheck(L, n < INT_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        auxsort(L, 1, (IdxT)n, 0, &steps);
    }
    return 0;
}

// MARK: - Installing

/// Replaces `table[name]` (the table on top of the stack) by a closure of `f` over the old value.
static void wrap_field(lua_State *L, const char *name, lua_CFunction f) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

void authsh_open_sandboxlib(lua_State *L) {
    lua_pushglobaltable(L);                                // stack: G
    wrap_field(L, "setmetatable", safe_setmetatable);
    lua_pushcfunction(L, safe_xpcall);
    lua_setfield(L, -2, "xpcall");
    lua_getfield(L, -1, "string");                         // stack: G, string
    wrap_field(L, "rep", safe_rep);
    lua_pop(L, 1);
    lua_getfield(L, -1, "table");                          // stack: G, table
    static const luaL_Reg table_funcs[] = {
        {"insert", tinsert}, {"remove", tremove}, {"move", tmove},
        {"concat", tconcat}, {"sort", tsort},     {NULL, NULL}};
    luaL_setfuncs(L, table_funcs, 0);
    lua_pop(L, 2);
}
