// SPDX-License-Identifier: Apache-2.0
// os.execute and io.popen in the trusted profile, as lua5.4's (glibc's system() and popen():
// `/bin/sh -c`, SIGINT and SIGQUIT ignored while os.execute waits, the statuses as lua5.4 reports
// them, a popen stream whose close waits for the program), but the program they run holds none
// of authsh's own sockets and anonymous inodes (shellspawn.c says how, and what passes). SwiftNIO
// opens its sockets and its epoll without close-on-exec; without this, a program a script runs
// would hold the client's HTTP connections (answers carrying tokens could be read there, and
// `os.execute("daemon &")` would keep them open after authsh ends).
//
// The guarded functions are light C functions, as the originals are (no upvalue to read or
// replace with the debug library).
#define _GNU_SOURCE  // pipe2
#include "shims_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>

/// This thread's signal mask, as the kernel keeps it.
static uint64_t current_mask(void) {
    uint64_t mask = 0;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof mask);
    return mask;
}

/// Waits for `pid`: its wait status with errno 0 (luaL_execresult reads errno), or -1 with errno.
static int wait_for(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    errno = 0;
    return status;
}

// MARK: - os.execute

/// SIGINT and SIGQUIT are ignored while any os.execute waits (as glibc's system() does, with
/// a count for several threads); `saved_*` are the dispositions to put back.
static pthread_mutex_t interrupts_lock = PTHREAD_MUTEX_INITIALIZER;
static int interrupts_users = 0;
static struct sigaction saved_interrupt, saved_quit;

/// Ignores SIGINT and SIGQUIT; says, for each, whether the program gets SIG_DFL (as glibc: unless
/// it was ignored before).
static void ignore_interrupts(shims_shell_start *start) {
    pthread_mutex_lock(&interrupts_lock);
    if (interrupts_users++ == 0) {
        struct sigaction ignore;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGINT, &ignore, &saved_interrupt);
        sigaction(SIGQUIT, &ignore, &saved_quit);
    }
    start->default_interrupt = saved_interrupt.sa_handler != SIG_IGN;
    start->default_quit = saved_quit.sa_handler != SIG_IGN;
    pthread_mutex_unlock(&interrupts_lock);
}

static void restore_interrupts(void) {
    pthread_mutex_lock(&interrupts_lock);
    if (--interrupts_users == 0) {
        sigaction(SIGINT, &saved_interrupt, NULL);
        sigaction(SIGQUIT, &saved_quit, NULL);
    }
    pthread_mutex_unlock(&interrupts_lock);
}

/// system(command) for a non-NULL command: the wait status (exit 127 when the shell could not
/// run), or -1 with errno.
static int run_command(const char *command) {
    shims_shell_start start = {.command = command, .from = -1, .to = -1, .mask = current_mask()};
    ignore_interrupts(&start);
    sigset_t chld, mask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &chld, &mask);
    pid_t pid = shims_spawn_shell(&start);
    int status = pid < 0 ? -1 : wait_for(pid);
    int saved_errno = errno;
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    restore_interrupts();
    errno = saved_errno;
    return status;
}

/// os.execute([command]), as liolib's: no command asks whether a shell is there.
static int guarded_execute(lua_State *L) {
    const char *command = luaL_optstring(L, 1, NULL);
    if (command == NULL) {
        lua_pushboolean(L, access("/bin/sh", X_OK) == 0);
        return 1;
    }
    errno = 0;
    return luaL_execresult(L, run_command(command));
}

// MARK: - io.popen

/// A popen stream: luaL_Stream first (liolib reads it as one), then the program's process.
typedef struct {
    luaL_Stream stream;
    pid_t pid;
} PopenStream;

/// The stream's close (file:close() or its collection): waits for the program. As glibc's
/// pclose under liolib: a failed flush is reported (errno says why), whatever the program did.
static int close_popen(lua_State *L) {
    PopenStream *p = (PopenStream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    errno = 0;
    int closed = fclose(p->stream.f);
    int close_errno = errno;
    int status = wait_for(p->pid);
    if (status != -1 && closed == EOF) {
        errno = close_errno;
        if (status == 0) status = -1;
    }
    return luaL_execresult(L, status);
}

/// io.popen(command [, mode]), as liolib's: "r" reads the program's output, "w" writes its input;
/// nil, message, errno when the program cannot be started.
static int guarded_popen(lua_State *L) {
    const char *command = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    luaL_argcheck(L, (mode[0] == 'r' || mode[0] == 'w') && mode[1] == '\0', 2, "invalid mode");
    PopenStream *p = (PopenStream *)lua_newuserdatauv(L, sizeof(PopenStream), 0);
    p->stream.f = NULL;
    p->stream.closef = NULL;  // closed until the program runs
    luaL_setmetatable(L, LUA_FILEHANDLE);
    fflush(NULL);  // as liolib's l_popen
    int reading = mode[0] == 'r';
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return luaL_fileresult(L, 0, command);
    int mine = reading ? ends[0] : ends[1], theirs = reading ? ends[1] : ends[0];
    FILE *f = fdopen(mine, mode);
    if (f == NULL) {
        int saved_errno = errno;
        close(mine);
        close(theirs);
        errno = saved_errno;
        return luaL_fileresult(L, 0, command);
    }
    shims_shell_start start = {.command = command, .from = theirs, .to = reading ? 1 : 0, .mask = current_mask()};
    pid_t pid = shims_spawn_shell(&start);
    int saved_errno = pid < 0 ? errno : start.failure;
    close(theirs);
    if (pid < 0 || start.failure != 0) {
        if (pid > 0) wait_for(pid);
        fclose(f);
        errno = saved_errno;
        return luaL_fileresult(L, 0, command);
    }
    p->stream.f = f;
    p->pid = pid;
    p->stream.closef = close_popen;
    return 1;
}

/// Replaces `library.name`, when the library is open, with `guarded`. [-0, +0, m]
static void guard(lua_State *L, const char *library, const char *name, lua_CFunction guarded) {
    if (lua_getglobal(L, library) == LUA_TTABLE) {
        lua_pushcfunction(L, guarded);
        lua_setfield(L, -2, name);
    }
    lua_pop(L, 1);
}

void shims_guard_exec(lua_State *L) {
    shims_remember_inherited();
    guard(L, "os", "execute", guarded_execute);
    guard(L, "io", "popen", guarded_popen);
}
