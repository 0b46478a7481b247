// SPDX-License-Identifier: Apache-2.0
// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#include "luashims.h"
#include "shims_internal.h"

#include <pthread.h>
#include <unistd.h>

#include <lauxlib.h>

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
void shims_set_current(authsh_control *c, lua_State *co) {
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

void shims_kill_current_run(lua_State *L, int reason) {
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
    shims_set_current(c, co);  // a kill now arms `co`, where the handlers run
    int status = lua_resetthread(co);
    shims_set_current(c, previous);
    c->enforce = enforce;
    return status;
}
