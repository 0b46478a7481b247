// SPDX-License-Identifier: Apache-2.0 AND MIT
// coroutine.resume, wrap, close, running, isyieldable, yield and status for authsh: they track
// the running coroutine (so that a kill reaches it), forward host yields to the scheduler, and
// make a task's root look like the main thread to Lua code. Both profiles install them.
//
// A fork of Lua 5.4.4's lcorolib.c (auxresume, luaB_coresume, luaB_auxwrap, luaB_cowrap,
// luaB_yield, auxstatus, luaB_costatus, luaB_yieldable, luaB_corunning, luaB_close); a
// "vs upstream" line above each forked function says what it changes. A change of upstream's
// library must be carried here by hand. That code is under Lua's licence, which asks that this
// notice go with it:
//
// Copyright (C) 1994-2022 Lua.org, PUC-Rio.
//
// Permission is hereby granted, free of charge, to any person obtaining a copy of this
// software and associated documentation files (the "Software"), to deal in the Software
// without restriction, including without limitation the rights to use, copy, modify, merge,
// publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
// to whom the Software is furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all copies or
// substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
// INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
// PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
// FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
// OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
// DEALINGS IN THE SOFTWARE.

// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#include "luashims.h"
#include "shims_internal.h"

#include <lauxlib.h>

// MARK: - coroutine.resume and coroutine.wrap with tracking and host-yield forwarding

/// lcorolib's auxresume, with the running coroutine tracked for the kill switch.
// vs upstream auxresume: tracks the running coroutine (shims_set_current); no l_likely.
static int auxresume(lua_State *L, lua_State *co, int narg) {
    authsh_control *c = authsh_control_of(L);
    int status, nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    shims_set_current(c, co);
    status = lua_resume(co, L, narg, &nres);
    shims_set_current(c, L);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    return -1;
}

static int finish_resume(lua_State *L, lua_State *co, int r, lua_KContext iswrap);

// New: the continuation that resumes `co` with the scheduler's answer to a forwarded yield.
static int forward_k(lua_State *L, int status, lua_KContext iswrap) {
    (void)status;
    // stack (resume): co, answers...   (wrap): answers...
    lua_State *co = iswrap ? lua_tothread(L, lua_upvalueindex(1)) : lua_tothread(L, 1);
    int r = auxresume(L, co, lua_gettop(L) - (iswrap ? 0 : 1));
    return finish_resume(L, co, r, iswrap);
}

// vs upstream: the tails of luaB_coresume and luaB_auxwrap, plus host-yield forwarding;
// a dead wrapped coroutine: authsh_checkkill, then authsh_resetthread for lua_resetthread.
static int finish_resume(lua_State *L, lua_State *co, int r, lua_KContext iswrap) {
    if (r > 0 && authsh_ishostmarker(L, -r)) {
        // A host function inside `co` yielded to reach the scheduler: pass it up, and pass
        // the scheduler's answer back down when we are resumed.
        if (!lua_isyieldable(L))
            return luaL_error(L, "attempt to call an async function from a context that cannot yield");
        return lua_yieldk(L, r, iswrap, forward_k);
    }
    if (!iswrap) {
        if (r < 0) {
            lua_pushboolean(L, 0);
            lua_insert(L, -2);
            return 2;
        }
        lua_pushboolean(L, 1);
        lua_insert(L, -(r + 1));
        return r + 1;
    }
    if (r < 0) {  // lcorolib's auxwrap
        int stat = lua_status(co);
        if (stat != LUA_OK && stat != LUA_YIELD) {
            authsh_checkkill(L);  // killed: no `__close` handler runs (see authsh_resetthread)
            stat = authsh_resetthread(L, co);
            lua_xmove(co, L, 1);
        }
        if (stat != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    return r;
}

static int costatus(lua_State *L, lua_State *co);
static int is_main_thread(lua_State *L, lua_State *co);

// vs upstream luaB_costatus: "coroutine expected" (upstream: "thread"); task-aware costatus.
static int co_status(lua_State *L) {
    static const char *const names[] = {"running", "dead", "suspended", "normal"};
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    lua_pushstring(L, names[costatus(L, co)]);
    return 1;
}

// vs upstream luaB_coresume: refuses the main thread; "coroutine expected"; tail in finish_resume.
static int co_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    if (is_main_thread(L, co)) {  // what lua5.4 answers for the running main thread
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "cannot resume non-suspended coroutine");
        return 2;
    }
    int r = auxresume(L, co, lua_gettop(L) - 1);
    return finish_resume(L, co, r, 0);
}

// vs upstream luaB_auxwrap: the error path moved to finish_resume.
static int co_auxwrap(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = auxresume(L, co, lua_gettop(L));
    return finish_resume(L, co, r, 1);
}

// vs upstream luaB_cowrap: luaB_cocreate inlined; the closure is co_auxwrap.
static int co_wrap(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *NL = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, NL, 1);
    lua_pushcclosure(L, co_auxwrap, 1);
    return 1;
}

// MARK: Task roots look like the main thread (a diff against Lua 5.4.4's lcorolib: these
// functions are new; lcorolib's running, isyieldable, yield and status do not know tasks).

static const char *const ROOTS_KEY = "authsh.taskroots";

void authsh_mark_root(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, ROOTS_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);                                   // weak keys: a finished task goes
        lua_newtable(L);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, ROOTS_KEY);
    }                                                      // stack: thread, roots
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/// Whether `co` is a task's root (L is any thread of the state).
static int is_root(lua_State *L, lua_State *co) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, ROOTS_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushthread(co);
    lua_xmove(co, L, 1);
    int root = lua_rawget(L, -2) == LUA_TBOOLEAN;
    lua_pop(L, 2);
    return root;
}

static int is_main_thread(lua_State *L, lua_State *co) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    int main = lua_tothread(L, -1) == co;
    lua_pop(L, 1);
    return main;
}

// vs upstream luaB_corunning: at a task's root, the main thread and true.
static int co_running(lua_State *L) {
    if (is_root(L, L)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
        lua_pushboolean(L, 1);
        return 2;
    }
    int ismain = lua_pushthread(L);
    lua_pushboolean(L, ismain);
    return 2;
}

// vs upstream luaB_yieldable: false at a task's root and the main thread; "coroutine expected".
static int co_isyieldable(lua_State *L) {
    lua_State *co = lua_isnone(L, 1) ? L : lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    lua_pushboolean(L, lua_isyieldable(co) && !is_root(L, co) && !is_main_thread(L, co));
    return 1;
}

// vs upstream luaB_yield: raises at a task's root.
static int co_yield(lua_State *L) {
    if (is_root(L, L)) {  // lua5.4's message, without a position (lua_yieldk raises it so)
        lua_pushliteral(L, "attempt to yield from outside a coroutine");
        return lua_error(L);
    }
    return lua_yield(L, lua_gettop(L));
}

/// lcorolib's auxstatus.
enum { COS_RUN, COS_DEAD, COS_YIELD, COS_NORM };

// vs upstream auxstatus: the main thread seen from a task (below); an enum for the #defines.
static int costatus(lua_State *L, lua_State *co) {
    if (L == co) return COS_RUN;
    // The main thread, seen from a task: running if the task is at its root, else normal.
    if (is_main_thread(L, co)) return is_root(L, L) ? COS_RUN : COS_NORM;
    switch (lua_status(co)) {
    case LUA_YIELD:
        return COS_YIELD;
    case LUA_OK: {
        lua_Debug ar;
        if (lua_getstack(co, 0, &ar)) return COS_NORM;
        return lua_gettop(co) == 0 ? COS_DEAD : COS_YIELD;
    }
    default:
        return COS_DEAD;
    }
}

/// lcorolib's coroutine.close, with the handlers run under the deadline (authsh_resetthread).
// vs upstream luaB_close: authsh_checkkill, authsh_resetthread; "coroutine expected"; no switch.
static int co_close(lua_State *L) {
    static const char *const names[] = {"running", "dead", "suspended", "normal"};
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    int status = costatus(L, co);
    if (status != COS_DEAD && status != COS_YIELD)
        return luaL_error(L, "cannot close a %s coroutine", names[status]);
    authsh_checkkill(L);
    if (authsh_resetthread(L, co) == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1);
    return 2;
}

// New: upstream has luaopen_coroutine; this overwrites its functions with the ones above.
void shims_open_coroutine_overrides(lua_State *L) {
    static const luaL_Reg overrides[] = {
        {"resume", co_resume}, {"wrap", co_wrap}, {"close", co_close}, {"running", co_running},
        {"isyieldable", co_isyieldable}, {"yield", co_yield}, {"status", co_status}, {NULL, NULL},
    };
    lua_getglobal(L, "coroutine");                         // stack: co
    luaL_setfuncs(L, overrides, 0);
    lua_pop(L, 1);
}
