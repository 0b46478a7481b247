// SPDX-License-Identifier: Apache-2.0
// Lua 5.4 headers for Swift, plus static inline versions of the C macros Swift cannot import.
#ifndef AUTHSH_CLUA_SHIM_H
#define AUTHSH_CLUA_SHIM_H
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

static const int clua_registryindex = LUA_REGISTRYINDEX;
static const int clua_multret = LUA_MULTRET;
static const lua_Integer clua_ridx_globals = LUA_RIDX_GLOBALS;

static inline int clua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void clua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void clua_newtable(lua_State *L) { lua_newtable(L); }
static inline void clua_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline void clua_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void clua_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void clua_replace(lua_State *L, int idx) { lua_replace(L, idx); }
static inline const char *clua_typename(lua_State *L, int idx) { return luaL_typename(L, idx); }
static inline int clua_loadbufferx(lua_State *L, const char *buf, size_t len, const char *name, const char *mode) {
    return luaL_loadbufferx(L, buf, len, name, mode);
}
static inline void *clua_newuserdata(lua_State *L, size_t size) { return lua_newuserdatauv(L, size, 1); }
static inline const char *clua_release(void) { return LUA_RELEASE; }

/// The LUA_EXTRASPACE bytes before a state (shared by its threads): authsh keeps its LuaState there.
static inline void **clua_extraspace(lua_State *L) { return (void **)lua_getextraspace(L); }
#endif
