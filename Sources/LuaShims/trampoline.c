// SPDX-License-Identifier: Apache-2.0
// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#include "luashims.h"
#include "shims_internal.h"

#include <string.h>

#include <lauxlib.h>

static authsh_dispatch_fn swift_dispatch;
static authsh_release_fn swift_release;
static char host_marker;  // its address tags host yields

void authsh_set_dispatch(authsh_dispatch_fn dispatch, authsh_release_fn release) {
    swift_dispatch = dispatch;
    swift_release = release;
}

// MARK: - Trampoline

static int continuation(lua_State *L, int status, lua_KContext ctx) {
    (void)status; (void)ctx;
    // stack: flag, values... (flag 0 = results, 1 = raise value, 2 = raise with position)
    lua_Integer flag = lua_tointeger(L, 1);
    if (flag == 0) return lua_gettop(L) - 1;
    lua_settop(L, 2);
    if (flag == 2 && lua_type(L, 2) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int argerror(lua_State *L, int arg, const char *extramsg, const char *fallback) {
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar)) return luaL_error(L, "bad argument #%d (%s)", arg, extramsg);
    lua_getinfo(L, "n", &ar);
    if (ar.namewhat && strcmp(ar.namewhat, "method") == 0) {
        arg--;  // do not count self
        if (arg == 0) return luaL_error(L, "calling '%s' on bad self (%s)", ar.name, extramsg);
    }
    const char *name = ar.name ? ar.name : fallback;
    return luaL_error(L, "bad argument #%d to '%s' (%s)", arg, name, extramsg);
}

static int trampoline(lua_State *L) {
    void **box = lua_touserdata(L, lua_upvalueindex(1));
    authsh_control *c = authsh_control_of(L);
    int enforce = c->enforce;
    c->enforce = 0;  // host code may push freely; the cap is checked when it returns
    int r = swift_dispatch(L, *box);
    c->enforce = enforce;
    if (r >= 0) {
        if (enforce && c->limit && c->used > c->limit) return luaL_error(L, "not enough memory");
        return r;
    }
    switch (r) {
    case AUTHSH_RAISE:
        return lua_error(L);
    case AUTHSH_RAISE_WHERE:
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    case AUTHSH_ARGERROR:
        return argerror(L, c->aux, lua_tostring(L, -1), lua_tostring(L, lua_upvalueindex(2)));
    case AUTHSH_YIELD: {
        int n = c->aux;
        lua_rotate(L, 1, n);       // the n values to the bottom
        lua_settop(L, n);          // drop the arguments
        return lua_yieldk(L, n, 0, continuation);
    }
    default:
        return luaL_error(L, "authsh: bad status %d from a host function", r);
    }
}

static int release_box(lua_State *L) {
    void **box = lua_touserdata(L, 1);
    if (box && *box) {
        swift_release(*box);
        *box = NULL;
    }
    return 0;
}

static const char *const BOX_META = "authsh.box";

void authsh_pushfunction(lua_State *L, void *box, const char *name) {
    void **ud = lua_newuserdatauv(L, sizeof(void *), 0);  // stack: ud
    *ud = box;
    if (luaL_newmetatable(L, BOX_META)) {                  // stack: ud, mt
        lua_pushcfunction(L, release_box);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);                               // stack: ud
    lua_pushstring(L, name);                               // stack: ud, name
    lua_pushcclosure(L, trampoline, 2);                    // stack: closure
}

void authsh_setgc(lua_State *L) {
    lua_pushcfunction(L, release_box);
    lua_setfield(L, -2, "__gc");
}

void authsh_pushobject(lua_State *L, void *box) {
    void **ud = lua_newuserdatauv(L, sizeof(void *), 1);   // stack: mt, ud
    *ud = box;
    lua_insert(L, -2);                                     // stack: ud, mt
    lua_setmetatable(L, -2);                               // stack: ud
}

void *authsh_toobject(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) != sizeof(void *)) return NULL;
    if (!lua_getmetatable(L, idx)) return NULL;            // stack: mt
    lua_pushliteral(L, "__gc");
    lua_rawget(L, -2);                                     // stack: mt, gc
    int ours = lua_tocfunction(L, -1) == release_box;
    lua_pop(L, 2);
    if (!ours) return NULL;
    void **box = lua_touserdata(L, idx);
    return *box;
}

void authsh_pushhostmarker(lua_State *L) { lua_pushlightuserdata(L, &host_marker); }

int authsh_ishostmarker(lua_State *L, int idx) {
    return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == &host_marker;
}

// MARK: - Running code

static const char *const TRACEBACK_KEY = "authsh.traceback";

static int msghandler(lua_State *L) {
    // Keeps the error object as it is; the traceback goes to the registry for the host.
    const char *msg = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : NULL;
    luaL_traceback(L, L, msg, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, TRACEBACK_KEY);
    return 1;
}

int authsh_pcall(lua_State *L, int nargs, int nresults) {
    authsh_control *c = authsh_control_of(L);
    int base = lua_gettop(L) - nargs;  // the function's index
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    int enforce = c->enforce;
    c->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    c->enforce = enforce;
    lua_remove(L, base);
    return status;
}

int authsh_hostresume(lua_State *L, lua_State *co, int nargs, int *nresults) {
    authsh_control *c = authsh_control_of(L);
    shims_set_current(c, co);
    int enforce = c->enforce;
    c->enforce = 1;
    int status = lua_resume(co, L, nargs, nresults);
    c->enforce = enforce;
    shims_set_current(c, NULL);
    return status;
}

void authsh_traceback(lua_State *L, lua_State *co, const char *msg, int level) {
    luaL_traceback(L, co, msg, level);
}

static int tostring_protected(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

int authsh_tostring(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, tostring_protected);
    lua_pushvalue(L, idx);
    return lua_pcall(L, 1, 1, 0);
}
