// SPDX-License-Identifier: Apache-2.0
// Internals the LuaShims .c files share; not part of include/luashims.h, the API Swift imports.
// Shared functions are prefixed shims_ so that none clashes with Lua, authsh_* or Swift.
#ifndef AUTHSH_SHIMS_INTERNAL_H
#define AUTHSH_SHIMS_INTERNAL_H

#include "luashims.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

// execguard.c
/// Replaces os.execute and io.popen by authsh's, whose programs hold none of the host's own
/// sockets and anonymous inodes; remembers what the process was started with, once. [-0, +0, m]
void shims_guard_exec(lua_State *L);

// shellspawn.c
/// How `/bin/sh -c command` starts.
typedef struct {
    const char *command;
    int from, to;                         // dup3(from, to) first, when from >= 0 (a popen pipe)
    int default_interrupt, default_quit;  // SIGINT / SIGQUIT back to SIG_DFL (os.execute ignores them)
    uint64_t mask;                        // the program's signal mask, as the kernel keeps it
    int first_realtime;                   // set by the spawn: SIGRTMIN
    int *error;                           // set by the spawn: &errno, taken in the parent (the
                                          // child must not call __errno_location through the PLT)
    int failure;                          // set by the child: an errno when the shell could not run
} shims_shell_start;
/// Remembers, once, the sockets and anonymous inodes the process was started with (they pass).
void shims_remember_inherited(void);
/// Starts the shell, holding none of the host's other sockets and anonymous inodes: the pid
/// (which exits 127 with `failure` set if the shell could not run), or -1 with errno.
pid_t shims_spawn_shell(shims_shell_start *start);

#endif
