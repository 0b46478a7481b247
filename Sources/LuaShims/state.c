// SPDX-License-Identifier: Apache-2.0
// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#include "luashims.h"
#include "shims_internal.h"

#include <stdlib.h>

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

void authsh_close(lua_State *L) {
    authsh_control *c = authsh_control_of(L);
    shims_watchdog_forget(L);
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
