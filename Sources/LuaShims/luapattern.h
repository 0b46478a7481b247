// SPDX-License-Identifier: Apache-2.0
#ifndef AUTHSH_LUAPATTERN_H
#define AUTHSH_LUAPATTERN_H
#include <lua.h>

/// Replaces find, match, gmatch and gsub in the table on top of the stack with authsh's
/// interruptible matcher (see luapattern.c). [-0, +0, m]
void authsh_open_patterns(lua_State *L);

#endif
