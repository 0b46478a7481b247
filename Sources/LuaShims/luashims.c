// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#include "luashims.h"
#include "luapattern.h"
#include "sandboxlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

struct authsh_control {
    size_t used;             // bytes allocated now
    size_t limit;            // cap in bytes; 0 = none
    int enforce;             // cap applies only while Lua code runs
    int aux;                 // operand of the last handler status
    pthread_mutex_t lock;    // guards current, generation, kill, killgen, wakefd (the watchdog reads them)
    lua_State *current;      // the coroutine running now, or NULL while the host runs
    unsigned long generation;
    int kill;                // AUTHSH_KILL_* for generation killgen
    unsigned long killgen;
    int wakefd;              // written to on a kill; -1 = none
};

static authsh_dispatch_fn swift_dispatch;
static authsh_release_fn swift_release;
static char host_marker;  // its address tags host yields

void authsh_set_dispatch(authsh_dispatch_fn dispatch, authsh_release_fn release) {
    swift_dispatch = dispatch;
    swift_release = release;
}

// MARK: - State and allocator

static void *capping_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    authsh_control *c = ud;
    size_t old = ptr ? osize : 0;  // when ptr is NULL, osize is a type tag
    if (nsize == 0) {
        free(ptr);
        c->used -= old;
        return NULL;
    }
    if (c->enforce && c->limit && nsize > old && c->used - old + nsize > c->limit) return NULL;
    void *p = realloc(ptr, nsize);
    if (p) c->used = c->used - old + nsize;
    return p;
}

static void no_warnings(void *ud, const char *msg, int tocont) {
    (void)ud; (void)msg; (void)tocont;
}

lua_State *authsh_newstate(size_t limit) {
    authsh_control *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->limit = limit;
    c->wakefd = -1;
    pthread_mutex_init(&c->lock, NULL);
    lua_State *L = lua_newstate(capping_alloc, c);
    if (!L) {
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
    }
    lua_setwarnf(L, no_warnings, NULL);
    return L;
}

authsh_control *authsh_control_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

static void watchdog_forget(lua_State *L);

void authsh_close(lua_State *L) {
    authsh_control *c = authsh_control_of(L);
    watchdog_forget(L);
    c->enforce = 0;
    lua_close(L);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

size_t authsh_memory_used(lua_State *L) { return authsh_control_of(L)->used; }
size_t authsh_memory_limit(lua_State *L) { return authsh_control_of(L)->limit; }

int authsh_enforce_memory(lua_State *L, int on) {
    authsh_control *c = authsh_control_of(L);
    int previous = c->enforce;
    c->enforce = on;
    return previous;
}

void authsh_set_aux(lua_State *L, int aux) { authsh_control_of(L)->aux = aux; }

// MARK: - Kill switch

static void killhook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    int kill = (c->kill && c->killgen == c->generation) ? c->kill : AUTHSH_KILL_NONE;
    pthread_mutex_unlock(&c->lock);
    if (kill == AUTHSH_KILL_NONE) {
        lua_sethook(L, NULL, 0, 0);  // a late kill of an earlier run: disarm
        return;
    }
    // The hook stays armed, so a pcall that catches this error fails again at its next
    // instruction: the kill cannot be swallowed.
    luaL_error(L, kill == AUTHSH_KILL_TIMEOUT ? "execution time limit exceeded" : "interrupted!");
}

static void arm(lua_State *co) {
    lua_sethook(co, killhook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

/// Marks `co` as the running coroutine; arms it if a kill is pending.
static void set_current(authsh_control *c, lua_State *co) {
    pthread_mutex_lock(&c->lock);
    c->current = co;
    if (co && c->kill && c->killgen == c->generation) arm(co);
    pthread_mutex_unlock(&c->lock);
}

unsigned long authsh_begin_run(lua_State *L) {
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    unsigned long gen = ++c->generation;
    c->kill = AUTHSH_KILL_NONE;
    pthread_mutex_unlock(&c->lock);
    return gen;
}

int authsh_end_run(lua_State *L) {
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    int kill = c->kill;
    c->generation++;
    c->kill = AUTHSH_KILL_NONE;
    c->current = NULL;
    pthread_mutex_unlock(&c->lock);
    return kill;
}

int authsh_killed(lua_State *L) {
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    int kill = (c->killgen == c->generation) ? c->kill : AUTHSH_KILL_NONE;
    pthread_mutex_unlock(&c->lock);
    return kill;
}

void authsh_set_wakefd(lua_State *L, int fd) {
    // Under the lock authsh_kill writes to it under: a kill never writes to a descriptor that
    // was just given back (and perhaps reused for something else).
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    c->wakefd = fd;
    pthread_mutex_unlock(&c->lock);
}

void authsh_kill(lua_State *L, unsigned long gen, int reason) {
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    if (c->generation == gen && c->kill == AUTHSH_KILL_NONE) {
        c->kill = reason;
        c->killgen = gen;
        if (c->current) arm(c->current);
        if (c->wakefd >= 0) {
            ssize_t ignored = write(c->wakefd, "k", 1);
            (void)ignored;
        }
    }
    pthread_mutex_unlock(&c->lock);
}

static void kill_current_run(lua_State *L, int reason) {
    authsh_control *c = authsh_control_of(L);
    pthread_mutex_lock(&c->lock);
    unsigned long gen = c->generation;
    pthread_mutex_unlock(&c->lock);
    authsh_kill(L, gen, reason);
}

void authsh_checkkill(lua_State *L) {
    int kill = authsh_killed(L);
    if (kill != AUTHSH_KILL_NONE)
        luaL_error(L, kill == AUTHSH_KILL_TIMEOUT ? "execution time limit exceeded" : "interrupted!");
}

int authsh_resetthread(lua_State *L, lua_State *co) {
    authsh_control *c = authsh_control_of(L);
    // A coroutine that the kill ended died inside the kill hook, where Lua turns hooks off;
    // its `__close` handlers would run unstoppable. The run is over: leave them.
    if (authsh_killed(L) != AUTHSH_KILL_NONE) return LUA_OK;
    pthread_mutex_lock(&c->lock);
    lua_State *previous = c->current;
    pthread_mutex_unlock(&c->lock);
    int enforce = c->enforce;
    c->enforce = 1;
    set_current(c, co);  // a kill now arms `co`, where the handlers run
    int status = lua_resetthread(co);
    set_current(c, previous);
    c->enforce = enforce;
    return status;
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
    set_current(c, co);
    int enforce = c->enforce;
    c->enforce = 1;
    int status = lua_resume(co, L, nargs, nresults);
    c->enforce = enforce;
    set_current(c, NULL);
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

// MARK: - coroutine.resume and coroutine.wrap with tracking and host-yield forwarding

// The functions named "lcorolib's" below are adapted from Lua 5.4.4's lcorolib.c (Copyright
// (C) 1994-2022 Lua.org, PUC-Rio; MIT licence, whose notice is in luapattern.c), each marked
// with what it changes.

/// lcorolib's auxresume, with the running coroutine tracked for the kill switch.
static int auxresume(lua_State *L, lua_State *co, int narg) {
    authsh_control *c = authsh_control_of(L);
    int status, nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    set_current(c, co);
    status = lua_resume(co, L, narg, &nres);
    set_current(c, L);
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

static int forward_k(lua_State *L, int status, lua_KContext iswrap) {
    (void)status;
    // stack (resume): co, answers...   (wrap): answers...
    lua_State *co = iswrap ? lua_tothread(L, lua_upvalueindex(1)) : lua_tothread(L, 1);
    int r = auxresume(L, co, lua_gettop(L) - (iswrap ? 0 : 1));
    return finish_resume(L, co, r, iswrap);
}

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

static int co_status(lua_State *L) {
    static const char *const names[] = {"running", "dead", "suspended", "normal"};
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    lua_pushstring(L, names[costatus(L, co)]);
    return 1;
}

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

static int co_auxwrap(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = auxresume(L, co, lua_gettop(L));
    return finish_resume(L, co, r, 1);
}

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

static int co_isyieldable(lua_State *L) {
    lua_State *co = lua_isnone(L, 1) ? L : lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    lua_pushboolean(L, lua_isyieldable(co) && !is_root(L, co) && !is_main_thread(L, co));
    return 1;
}

static int co_yield(lua_State *L) {
    if (is_root(L, L)) {  // lua5.4's message, without a position (lua_yieldk raises it so)
        lua_pushliteral(L, "attempt to yield from outside a coroutine");
        return lua_error(L);
    }
    return lua_yield(L, lua_gettop(L));
}

/// lcorolib's auxstatus.
enum { COS_RUN, COS_DEAD, COS_YIELD, COS_NORM };

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

// MARK: - Libraries

static void open_coroutine_overrides(lua_State *L) {
    static const luaL_Reg overrides[] = {
        {"resume", co_resume}, {"wrap", co_wrap}, {"close", co_close}, {"running", co_running},
        {"isyieldable", co_isyieldable}, {"yield", co_yield}, {"status", co_status}, {NULL, NULL},
    };
    lua_getglobal(L, "coroutine");                         // stack: co
    luaL_setfuncs(L, overrides, 0);
    lua_pop(L, 1);
}

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
    open_coroutine_overrides(L);
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
    open_coroutine_overrides(L);
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

// MARK: - Watchdog

typedef struct {
    uint64_t ticket;
    lua_State *L;
    unsigned long gen;
    struct timespec deadline;
} wd_entry;

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static int wd_pipe[2] = {-1, -1};
static int sig_pipe[2] = {-1, -1};
static wd_entry *wd_entries;
static size_t wd_count, wd_capacity;
static uint64_t wd_next_ticket = 1;
static lua_State *wd_interrupt_target;
static volatile sig_atomic_t sigint_pending;
// What the watchdog sleeps until (under wd_lock): arming a later deadline need not wake it.
static int wd_sleeps_forever = 1;
static struct timespec wd_sleep_until;

static int before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

static void *watchdog_main(void *arg) {
    (void)arg;
    for (;;) {
        int timeout = -1;
        struct timespec now;
        pthread_mutex_lock(&wd_lock);
        clock_gettime(CLOCK_MONOTONIC, &now);
        wd_sleeps_forever = 1;
        for (size_t i = 0; i < wd_count; i++) {
            long long ms = (long long)(wd_entries[i].deadline.tv_sec - now.tv_sec) * 1000 +
                           (wd_entries[i].deadline.tv_nsec - now.tv_nsec) / 1000000 + 1;
            if (ms < 0) ms = 0;
            if (timeout < 0 || ms < timeout) timeout = (int)ms;
            if (wd_sleeps_forever || before(&wd_entries[i].deadline, &wd_sleep_until)) {
                wd_sleep_until = wd_entries[i].deadline;
                wd_sleeps_forever = 0;
            }
        }
        pthread_mutex_unlock(&wd_lock);
        struct pollfd pfd = {.fd = wd_pipe[0], .events = POLLIN};
        int n = poll(&pfd, 1, timeout);
        if (n > 0) authsh_drain(wd_pipe[0]);
        pthread_mutex_lock(&wd_lock);
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (size_t i = 0; i < wd_count;) {
            if (before(&wd_entries[i].deadline, &now)) {
                authsh_kill(wd_entries[i].L, wd_entries[i].gen, AUTHSH_KILL_TIMEOUT);
                wd_entries[i] = wd_entries[--wd_count];
            } else {
                i++;
            }
        }
        if (sigint_pending) {
            sigint_pending = 0;
            if (wd_interrupt_target) kill_current_run(wd_interrupt_target, AUTHSH_KILL_INTERRUPT);
        }
        pthread_mutex_unlock(&wd_lock);
    }
    return NULL;
}

static int make_pipe(int fds[2]) {
    if (pipe(fds) != 0) return 0;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    return 1;
}

/// Set when the watchdog could not start (no pipe, no thread): deadlines cannot be kept, so
/// arming one fails and the run that needs it is refused (fail closed).
static int wd_failed;

static void watchdog_start(void) {
    if (!make_pipe(wd_pipe) || !make_pipe(sig_pipe)) {
        wd_failed = 1;
        return;
    }
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);  // the watchdog never takes a signal itself
    if (pthread_create(&thread, &attr, watchdog_main, NULL) != 0) wd_failed = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

static void wake_watchdog(void) {
    ssize_t ignored = write(wd_pipe[1], "a", 1);
    (void)ignored;
}

uint64_t authsh_watchdog_arm(lua_State *L, unsigned long gen, double seconds) {
    pthread_once(&wd_once, watchdog_start);
    if (wd_failed) return 0;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    long long ns = (long long)(seconds * 1e9);
    deadline.tv_sec += ns / 1000000000LL;
    deadline.tv_nsec += ns % 1000000000LL;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&wd_lock);
    if (wd_count == wd_capacity) {
        size_t capacity = wd_capacity ? wd_capacity * 2 : 16;
        wd_entry *grown = realloc(wd_entries, capacity * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&wd_lock);
            return 0;
        }
        wd_entries = grown;
        wd_capacity = capacity;
    }
    uint64_t ticket = wd_next_ticket++;
    wd_entries[wd_count++] = (wd_entry){.ticket = ticket, .L = L, .gen = gen, .deadline = deadline};
    // Wake the watchdog only if it would sleep past this deadline (one server call after
    // another arms deadlines later than the one it already waits for: no syscall then).
    int wake = wd_sleeps_forever || before(&deadline, &wd_sleep_until);
    if (wake) {
        wd_sleep_until = deadline;
        wd_sleeps_forever = 0;
    }
    pthread_mutex_unlock(&wd_lock);
    if (wake) wake_watchdog();
    return ticket;
}

void authsh_watchdog_disarm(uint64_t ticket) {
    pthread_mutex_lock(&wd_lock);
    for (size_t i = 0; i < wd_count; i++) {
        if (wd_entries[i].ticket == ticket) {
            wd_entries[i] = wd_entries[--wd_count];
            break;
        }
    }
    pthread_mutex_unlock(&wd_lock);
}

static void watchdog_forget(lua_State *L) {
    pthread_mutex_lock(&wd_lock);
    if (wd_interrupt_target == L) wd_interrupt_target = NULL;
    for (size_t i = 0; i < wd_count;) {
        if (wd_entries[i].L == L) wd_entries[i] = wd_entries[--wd_count];
        else i++;
    }
    pthread_mutex_unlock(&wd_lock);
}

void authsh_interrupt_target(lua_State *L) {
    pthread_mutex_lock(&wd_lock);
    wd_interrupt_target = L;
    pthread_mutex_unlock(&wd_lock);
}

static void on_sigint(int sig) {
    (void)sig;
    int saved = errno;
    sigint_pending = 1;
    ssize_t ignored = write(wd_pipe[1], "i", 1);
    ignored = write(sig_pipe[1], "i", 1);
    (void)ignored;
    errno = saved;
}

int authsh_install_sigint(void) {
    pthread_once(&wd_once, watchdog_start);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    // A parent may have left SIGINT blocked (the mask survives exec): unblock it here.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return sigaction(SIGINT, &sa, NULL);
}

int authsh_interrupt_fd(void) {
    pthread_once(&wd_once, watchdog_start);
    return sig_pipe[0];
}

void authsh_drain(int fd) {
    char buffer[64];
    while (read(fd, buffer, sizeof buffer) > 0) {}
}
