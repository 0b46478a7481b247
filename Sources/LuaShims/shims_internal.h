// Internals the LuaShims .c files share; not part of include/luashims.h, the API Swift imports.
// Shared functions are prefixed shims_ so that none clashes with Lua, authsh_* or Swift.
#ifndef AUTHSH_SHIMS_INTERNAL_H
#define AUTHSH_SHIMS_INTERNAL_H

#include "luashims.h"

#include <pthread.h>
#include <stddef.h>

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

// kill.c
/// Marks `co` as the running coroutine; arms it if a kill is pending.
void shims_set_current(authsh_control *c, lua_State *co);
/// Kills the run of L that is current now (SIGINT, from the watchdog thread).
void shims_kill_current_run(lua_State *L, int reason);

// watchdog.c
/// Forgets L: its deadlines, and L as the SIGINT target (authsh_close).
void shims_watchdog_forget(lua_State *L);

// corolib.c
/// Replaces resume, wrap, close, running, isyieldable, yield and status in the global
/// `coroutine` table with authsh's (both profiles). [-0, +0, m]
void shims_open_coroutine_overrides(lua_State *L);

/* execguard.c: os.execute and io.popen whose programs hold none of the host's own sockets and
   anonymous inodes (sorted out in the child, between fork and exec). */
void shims_guard_exec(lua_State *L);

#endif
