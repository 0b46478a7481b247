// SPDX-License-Identifier: Apache-2.0
// The library profiles of authsh_openlibs (opened with the memory cap off).
//
// SANDBOXED (plugins):
// - Opened: base, string, table, math, utf8, coroutine. Not opened: io, package (no `require`,
//   no C modules), debug.
// - Removed from base: dofile, loadfile (no file access).
// - os: time, clock, date and difftime only.
// - load: text chunks only (mode forced to "t"; a mode without 't' raises).
// - collectgarbage: "collect" (the default), "count", "step" and "isrunning" only.
// - string, table, math, utf8, coroutine and os are read-only proxies (writes raise, reads and
//   `pairs` pass through, metatable hidden); `rawset` refuses them.
// - The string metatable is hidden (getmetatable("") is false).
// - Replaced so that the deadline and memory cap hold: coroutine.* (corolib.c),
//   string.find/match/gmatch/gsub (luapattern.c), setmetatable (no `__gc`), xpcall, string.rep,
//   table.insert/remove/move/concat/sort (sandboxlib.c).
// - Limits (set by the host, both profiles): the memory cap (state.c) while Lua code runs, and
//   the deadline / SIGINT kill (kill.c, watchdog.c).
//
// TRUSTED (REPL, batch scripts): every standard library as lua5.4 opens them, C modules
// included, plus the coroutine overrides and os.execute / io.popen that leave the host's
// descriptors out of the programs they run (execguard.c); authsh_ignore_environment is lua's -E.
//
// BOTH: math.random is seeded from the system's random source (getrandom), not from Lua's
// time-and-address default, which repeats for two states started in the same second in a
// process laid out alike (no ASLR): two scripts would then draw the same "unique" names, and a
// plugin's codes could be guessed from the time it started.

// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#include "luashims.h"
#include "shims_internal.h"
#include "luapattern.h"
#include "sandboxlib.h"

#include <string.h>
#include <sys/random.h>

#include <lauxlib.h>
#include <lualib.h>

// MARK: - Libraries

static int safe_load(lua_State *L) {
    // load(chunk [, chunkname [, mode [, env]]]) with mode forced to text.
    int nargs = lua_gettop(L);
    if (nargs < 3) lua_settop(L, 3);
    if (!lua_isnoneornil(L, 3)) {
        const char *mode = lua_tostring(L, 3);
        if (!mode || strchr(mode, 't') == NULL)
            return luaL_error(L, "load: binary chunks are not allowed in the sandbox");
    }
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int safe_collectgarbage(lua_State *L) {
    static const char *const allowed[] = {"collect", "count", "step", "isrunning", NULL};
    const char *opt = luaL_optstring(L, 1, "collect");
    for (int i = 0; allowed[i]; i++) {
        if (strcmp(opt, allowed[i]) == 0) {
            lua_pushvalue(L, lua_upvalueindex(1));
            lua_insert(L, 1);
            lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
            return lua_gettop(L);
        }
    }
    return luaL_error(L, "collectgarbage option '%s' is not allowed in the sandbox", opt);
}

static int readonly_newindex(lua_State *L) {
    return luaL_error(L, "attempt to modify read-only table '%s'", lua_tostring(L, lua_upvalueindex(1)));
}

static int readonly_pairs(lua_State *L) {
    lua_getglobal(L, "next");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushnil(L);
    return 3;
}

static const char *const READONLY_KEY = "authsh.readonly";

static int safe_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, LUA_REGISTRYINDEX, READONLY_KEY);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, -2) != LUA_TNIL) return luaL_error(L, "attempt to modify a read-only table");
    lua_pop(L, 2);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

void authsh_pushreadonly(lua_State *L, int idx, const char *name) {
    idx = lua_absindex(L, idx);
    lua_newtable(L);                                       // stack: proxy
    lua_newtable(L);                                       // stack: proxy, mt
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_pushcclosure(L, readonly_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, readonly_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);                               // stack: proxy
    if (lua_getfield(L, LUA_REGISTRYINDEX, READONLY_KEY) == LUA_TTABLE) {
        lua_pushvalue(L, -2);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);                                 // ro[proxy] = true
    }
    lua_pop(L, 1);                                         // stack: proxy
}

/// Replaces global `name` by a read-only proxy of it (reads pass through, writes raise).
static void make_readonly(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    authsh_pushreadonly(L, -1, name);
    lua_setglobal(L, name);
    lua_pop(L, 1);
}

/// Seeds math.random with 128 bits from getrandom; keeps Lua's own seed if that fails. [-0, +0, -]
static void seed_random(lua_State *L) {
    lua_Integer seed[2];
    if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) return;
    lua_getglobal(L, LUA_MATHLIBNAME);
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, seed[0]);
    lua_pushinteger(L, seed[1]);
    lua_call(L, 2, 0);
    lua_pop(L, 1);
}

static void open_sandboxed(lua_State *L) {
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},  {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
        {NULL, NULL}};
    for (const luaL_Reg *lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    seed_random(L);
    // os: time, clock and date only.
    lua_pushcfunction(L, luaopen_os);
    lua_call(L, 0, 1);                                     // stack: full os
    lua_newtable(L);                                       // stack: full, safe
    static const char *const os_keep[] = {"time", "clock", "date", "difftime", NULL};
    for (int i = 0; os_keep[i]; i++) {
        lua_getfield(L, -2, os_keep[i]);
        lua_setfield(L, -2, os_keep[i]);
    }
    lua_setglobal(L, "os");
    lua_pop(L, 1);
    // No file access, text-only load, restricted collectgarbage.
    static const char *const drop[] = {"dofile", "loadfile", NULL};
    for (int i = 0; drop[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, drop[i]);
    }
    lua_getglobal(L, "load");
    lua_pushcclosure(L, safe_load, 1);
    lua_setglobal(L, "load");
    lua_getglobal(L, "collectgarbage");
    lua_pushcclosure(L, safe_collectgarbage, 1);
    lua_setglobal(L, "collectgarbage");
    shims_open_coroutine_overrides(L);
    authsh_open_sandboxlib(L);
    // Pattern functions a deadline can stop (the string metatable's __index is this table too).
    lua_getglobal(L, "string");
    authsh_open_patterns(L);
    lua_pop(L, 1);
    // The string metatable is shared by every string: hide it.
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);                               // stack: "", mt
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
    // Library tables become read-only proxies; rawset refuses them.
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, READONLY_KEY);
    static const char *const ro[] = {"string", "table", "math", "utf8", "coroutine", "os", NULL};
    for (int i = 0; ro[i]; i++) make_readonly(L, ro[i]);
    lua_pushcfunction(L, safe_rawset);
    lua_setglobal(L, "rawset");
}

// The trusted profile (the REPL and batch scripts) is the standard libraries as lua5.4 opens
// them, C modules included: `package.cpath` and `package.path` come from LUA_CPATH_5_4 /
// LUA_CPATH and LUA_PATH_5_4 / LUA_PATH (or the library's defaults), as in lua.c. The user runs
// their own code there, with `io` and `os.execute`; refusing C modules protected nothing and
// cost every library of the Lua ecosystem (lpeg, cjson, luasocket, ...).
static void open_trusted(lua_State *L) {
    luaL_openlibs(L);
    seed_random(L);
    shims_open_coroutine_overrides(L);
    shims_guard_exec(L);
}

void authsh_ignore_environment(lua_State *L) {
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
}

void authsh_openlibs(lua_State *L, int sandboxed) {
    authsh_control *c = authsh_control_of(L);
    int enforce = c->enforce;
    c->enforce = 0;
    if (sandboxed) open_sandboxed(L);
    else open_trusted(L);
    c->enforce = enforce;
}
