// SPDX-License-Identifier: Apache-2.0
// The C side of authsh's Lua host: everything that may raise a Lua error or yield a
// coroutine lives here, so that no longjmp ever crosses a Swift frame.
//
// - authsh_newstate: a state whose allocator carries a per-state control block
//   (memory cap, kill switch, the running coroutine).
// - authsh_trampoline: the lua_CFunction behind every Swift function. It calls the Swift
//   dispatcher, which returns a status; only this C code calls lua_error or lua_yieldk.
// - authsh_resume / authsh_wrap: coroutine.resume and coroutine.wrap that track the running
//   coroutine (so a kill reaches it) and forward host yields to the scheduler.
// - a watchdog thread that arms a kill hook when a deadline passes or SIGINT arrives.
//
// Implemented in ../state.c, kill.c, trampoline.c, corolib.c, sandbox.c and watchdog.c;
// what they share beyond this header is in ../shims_internal.h.
#ifndef AUTHSH_LUASHIMS_H
#define AUTHSH_LUASHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>

/// What a Swift handler asks the trampoline to do (a result >= 0 is a count of results).
enum {
    /// Raise the value on top of the stack as is.
    AUTHSH_RAISE = -1,
    /// Raise the string on top of the stack, prefixed with the caller's position (luaL_error style).
    AUTHSH_RAISE_WHERE = -2,
    /// Raise "bad argument #aux to 'name' (<string on top>)" the way luaL_argerror does.
    AUTHSH_ARGERROR = -3,
    /// Yield the top `aux` values; on resume, the continuation reads (flag, values...).
    AUTHSH_YIELD = -4,
};

/// Why a state was killed.
enum { AUTHSH_KILL_NONE = 0, AUTHSH_KILL_TIMEOUT = 1, AUTHSH_KILL_INTERRUPT = 2 };

/// Per-state control block, reachable from any coroutine of the state through its allocator.
typedef struct authsh_control authsh_control;

/// The Swift dispatcher: runs the handler in `box` on `L`, returns a count or a status above.
typedef int (*authsh_dispatch_fn)(lua_State *L, void *box);
/// Releases a Swift box (called from `__gc`).
typedef void (*authsh_release_fn)(void *box);

/// Installs the Swift dispatcher and releaser (once per process).
void authsh_set_dispatch(authsh_dispatch_fn dispatch, authsh_release_fn release);

/// A new state with a capping allocator (`limit` bytes; 0 = no limit). NULL when out of memory.
lua_State *authsh_newstate(size_t limit);
/// Closes the state and frees its control block.
void authsh_close(lua_State *L);
authsh_control *authsh_control_of(lua_State *L);

/// Bytes allocated by the state now, and its limit (0 = none).
size_t authsh_memory_used(lua_State *L);
size_t authsh_memory_limit(lua_State *L);
/// Turns enforcement of the memory cap on (while Lua code runs) or off (while host code pushes).
/// Returns the previous setting.
int authsh_enforce_memory(lua_State *L, int on);

/// The auxiliary operand of the last status (argument index, number of values to yield).
void authsh_set_aux(lua_State *L, int aux);

/// Pushes a full userdata holding `box`, with a metatable whose __gc calls the releaser, and
/// a closure of authsh_trampoline over it (upvalues: box userdata, `name`). [-0, +1, m]
void authsh_pushfunction(lua_State *L, void *box, const char *name);
/// Pushes a full userdata holding `box` with the metatable at the top of the stack (popped)
/// and one user value. [-1, +1, m]
void authsh_pushobject(lua_State *L, void *box);
/// The box inside a userdata made by authsh_pushobject, or NULL.
void *authsh_toobject(lua_State *L, int idx);
/// Sets the metatable on top of the stack to release boxes on __gc. [-0, +0, m]
void authsh_setgc(lua_State *L);

/// Pushes the marker that tags a host yield (a light userdata Lua code cannot forge).
void authsh_pushhostmarker(lua_State *L);
int authsh_ishostmarker(lua_State *L, int idx);

/// Runs the function at the top (with `nargs` arguments below it) protected, with a
/// traceback handler: on error the stack holds the message with its traceback appended.
/// Enforces the memory cap meanwhile. Returns the lua_pcall status.
int authsh_pcall(lua_State *L, int nargs, int nresults);
/// Resumes coroutine `co` from the host with `nargs` arguments; tracks it as running.
int authsh_hostresume(lua_State *L, lua_State *co, int nargs, int *nresults);
/// luaL_traceback of `co` with `msg` onto L. [-0, +1, m]
void authsh_traceback(lua_State *L, lua_State *co, const char *msg, int level);
/// luaL_tolstring under a protected call: pushes the string, or an error text. Returns status.
int authsh_tostring(lua_State *L, int idx);
/// Pushes a read-only proxy of the table at `idx`: reads and `pairs` pass through, writes
/// raise "attempt to modify read-only table 'name'", and the sandbox's `rawset` refuses it.
/// [-0, +1, m]
void authsh_pushreadonly(lua_State *L, int idx, const char *name);
/// Marks the thread on top of L as a task's root: to Lua code it is the main thread, outside
/// any coroutine (`coroutine.running()` gives the main thread and true, `isyieldable()` is
/// false, `yield()` raises "attempt to yield from outside a coroutine"), as under lua5.4,
/// though the host yields it to reach the scheduler. [-0, +0, m]
void authsh_mark_root(lua_State *L);
/// Opens the libraries of the profile: trusted (all, C modules included, as lua5.4) or sandboxed.
void authsh_openlibs(lua_State *L, int sandboxed);
// Before authsh_openlibs: the package library ignores LUA_PATH and LUA_CPATH (lua's -E).
void authsh_ignore_environment(lua_State *L);

/// Starts a run generation: clears any earlier kill. Returns the generation.
unsigned long authsh_begin_run(lua_State *L);
/// Ends the run: later kills of this generation do nothing. Returns the kill reason it had.
int authsh_end_run(lua_State *L);
/// The kill reason of the current run (AUTHSH_KILL_*).
int authsh_killed(lua_State *L);
/// Sets an fd written to when the state is killed (wakes a scheduler blocked in poll); -1 = none.
void authsh_set_wakefd(lua_State *L, int fd);

/// A non-blocking pipe whose ends are close-on-exec from the start (pipe2), so that a program
/// os.execute runs on another thread meanwhile never holds them. 0, or -1 with errno.
int authsh_pipe(int fds[2]);
/// Raises the kill error of the current run when one is pending; returns otherwise.
/// C loops that Lua code drives call it now and then. [-0, +0, v]
void authsh_checkkill(lua_State *L);
/// lua_resetthread(co) for the host and the coroutine library. Skipped (LUA_OK) when the run
/// was killed: `co` then died inside the kill hook, with hooks off, and its `__close`
/// handlers could not be stopped; the state is spent anyway. Otherwise the handlers run
/// with the memory cap on and `co` tracked as running, so that the deadline reaches them.
/// Returns lua_resetthread's status (the error object, if any, on top of `co`). [-0, +0, -]
int authsh_resetthread(lua_State *L, lua_State *co);
/// Kills the running code of generation `gen` (from any thread).
void authsh_kill(lua_State *L, unsigned long gen, int reason);

/// Arms the watchdog: kill generation `gen` of L after `seconds`. Returns a ticket for disarm,
/// or 0 when the deadline cannot be kept (the watchdog could not start, or no memory).
uint64_t authsh_watchdog_arm(lua_State *L, unsigned long gen, double seconds);
void authsh_watchdog_disarm(uint64_t ticket);
/// While set, SIGINT kills the running code of L (REPL); NULL restores the default action.
void authsh_interrupt_target(lua_State *L);
/// Installs the SIGINT handler that feeds authsh_interrupt_target; returns 0 on success.
int authsh_install_sigint(void);
/// An fd that becomes readable on SIGINT (for the REPL's poll loop); drain with authsh_drain.
int authsh_interrupt_fd(void);
void authsh_drain(int fd);

#endif
