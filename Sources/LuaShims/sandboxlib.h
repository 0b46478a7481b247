// SPDX-License-Identifier: Apache-2.0
#ifndef AUTHSH_SANDBOXLIB_H
#define AUTHSH_SANDBOXLIB_H
#include <lua.h>

/// Installs the sandbox's versions of the library functions that could otherwise run Lua
/// code, or loop in C, beyond the state's deadline and memory cap (see sandboxlib.c).
/// Call before the library tables become read-only. [-0, +0, m]
void authsh_open_sandboxlib(lua_State *L);

#endif
