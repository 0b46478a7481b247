// os.execute and io.popen in the trusted profile: the program they run holds none of the
// sockets and anonymous inodes (epoll, eventfd, timerfd) from descriptor 3 up that authsh opened
// itself. SwiftNIO opens its sockets and its epoll without close-on-exec; without this, a
// program a script runs would hold the client's HTTP connections (answers carrying tokens could
// be read there, and `os.execute("daemon &")` would keep them open after authsh ends).
// Everything else passes as under lua5.4: a script's open files and pipes, and whatever authsh
// was started with (`3>log`, make's jobserver pipe, a socket from systemd), which a list taken
// when the first trusted state opens its libraries remembers: in authsh that is before the
// client has opened any socket, and a process with no trusted state (authsh-server) never reads
// the list.
//
// The sorting is done in the child, between clone and exec, on the child's own copy of the
// descriptor table: a socket a SwiftNIO thread opens at any moment is either in that copy (and
// sorted out) or not in the child at all. (Marking the parent's descriptors before calling
// system() or popen() left a window: a socket opened between the walk and the spawn was
// inherited.) So os.execute and io.popen are authsh's own, doing what glibc's system() and
// popen() do: `/bin/sh -c`, SIGINT and SIGQUIT ignored while os.execute waits, the exit status
// as lua5.4 reports it, a popen stream whose close waits for the program. The child calls only
// async-signal-safe system calls (no malloc: other threads may hold its locks) and, sharing
// the parent's memory until execve, writes nothing of it but errno. If /proc/self/fd cannot be
// read, the program is not run.
//
// The guarded functions are light C functions, as the originals are (no upvalue to read or
// replace with the debug library).
#define _GNU_SOURCE  // pipe2
#include "shims_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>

/// The descriptors from 3 up that the process was started with, with what
/// /proc/self/fd said each was (a number closed and reused by a socket of authsh's is not the
/// inherited one); at most this many, `inherited_all` false when there were more. Written once
/// (pthread_once) before any reader; read by the spawned children without a lock.
#define INHERITED_MAX 64
#define TARGET_MAX 64
static int inherited[INHERITED_MAX];
static char inherited_target[INHERITED_MAX][TARGET_MAX];
static int inherited_count = 0;
static int inherited_all = 1;

static int is_inherited(int fd, const char *target) {
    if (!inherited_all) return 1;  // too many to list: leave every one alone rather than cut one off
    for (int i = 0; i < inherited_count; i++) {
        if (inherited[i] == fd) return strcmp(inherited_target[i], target) == 0;
    }
    return 0;
}

/// Calls `visit(fd, target)` for each descriptor from 3 up, with what /proc/self/fd says it is.
/// Async-signal-safe (getdents64, not opendir, which allocates): children call it after fork.
/// Returns -1 when /proc/self/fd cannot be read.
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static int each_descriptor(void (*visit)(int fd, const char *target)) {
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return -1;
    char entries[2048];
    long n;
    while ((n = syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0) {
        for (long offset = 0; offset < n;) {
            struct linux_dirent64 *entry = (struct linux_dirent64 *)(entries + offset);
            offset += entry->d_reclen;
            const char *c = entry->d_name;
            if (*c < '0' || *c > '9') continue;
            int fd = 0;
            for (; *c >= '0' && *c <= '9'; c++) fd = fd * 10 + (*c - '0');
            if (fd < 3 || fd == dir) continue;
            char target[TARGET_MAX];
            ssize_t length = readlinkat(dir, entry->d_name, target, sizeof target - 1);
            target[length > 0 ? length : 0] = 0;
            visit(fd, target);
        }
    }
    close(dir);
    return 0;
}

static void remember(int fd, const char *target) {
    if (inherited_count == INHERITED_MAX) {
        inherited_all = 0;
        return;
    }
    inherited[inherited_count] = fd;
    strncpy(inherited_target[inherited_count], target, TARGET_MAX - 1);
    inherited_count++;
}

/// What the process was started with (one short directory read, once).
static pthread_once_t inherited_once = PTHREAD_ONCE_INIT;
static void remember_inherited(void) { each_descriptor(remember); }

static int is_host_kind(const char *target) {
    return strncmp(target, "socket:", 7) == 0 || strncmp(target, "anon_inode:", 11) == 0;
}

// MARK: - In the child, between clone and exec (async-signal-safe calls only)

static void cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static void cloexec_if_host(int fd, const char *target) {
    if (is_host_kind(target) && !is_inherited(fd, target)) cloexec(fd);
}

/// Makes this (child) process's own sockets and anonymous inodes close-on-exec. Exits 127 when
/// it cannot tell them apart (authsh does not start without /proc: Swift's runtime reads the
/// command line there).
static void sort_out_host_descriptors(void) {
    if (each_descriptor(cloexec_if_host) == 0) return;
    static const char message[] = "authsh: cannot tell authsh's descriptors from the script's; the program was not run\n";
    (void)!write(2, message, sizeof message - 1);
    _exit(127);
}

extern char **environ;

/// How the program starts.
typedef struct {
    const char *command;
    sigset_t mask;           // its signal mask
    int default_interrupts;  // SIGINT and SIGQUIT back to SIG_DFL (os.execute ignores them)
    int from, to;            // dup2(from, to) first, when from >= 0 (io.popen's pipe)
} ShellStart;

static void default_action(int signal) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(signal, &dfl, NULL);
}

/// The child: it shares the parent's memory (CLONE_VM) until execve, so it writes none of it.
/// Every caught signal goes back to its default first (a handler would run on the parent's
/// memory; execve resets them anyway), then the descriptors, the mask, `/bin/sh -c command`.
static int shell_child(void *argument) {
    const ShellStart *start = argument;
    for (int signal = 1; signal < _NSIG; signal++) {
        struct sigaction current;
        if (sigaction(signal, NULL, &current) == 0 && current.sa_handler != SIG_IGN && current.sa_handler != SIG_DFL)
            default_action(signal);
    }
    if (start->default_interrupts) {
        default_action(SIGINT);
        default_action(SIGQUIT);
    }
    if (start->from >= 0) {
        if (start->from == start->to) fcntl(start->from, F_SETFD, 0);
        else if (dup2(start->from, start->to) < 0) _exit(127);
    }
    sort_out_host_descriptors();
    sigprocmask(SIG_SETMASK, &start->mask, NULL);
    char *const argv[] = {"sh", "-c", (char *)start->command, NULL};
    execve("/bin/sh", argv, environ);
    _exit(127);
}

/// Starts `/bin/sh -c` as glibc's posix_spawn does: clone(CLONE_VM | CLONE_VFORK) on a stack of
/// its own, every signal blocked meanwhile; this thread waits until the program is executing
/// (fork() would copy the page tables: twice os.execute's cost). The pid, or -1 with errno.
static pid_t spawn_shell(const ShellStart *start) {
    const size_t size = 64 * 1024;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(shell_child, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)start);
    int saved_errno = pid < 0 ? errno : 0;  // the child's calls may have set errno
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    munmap(stack, size);
    errno = saved_errno;
    return pid;
}

// MARK: - os.execute

/// SIGINT and SIGQUIT are ignored while any os.execute waits (as glibc's system() does, with
/// a count for several threads); `saved_*` are the dispositions to put back.
static pthread_mutex_t interrupts_lock = PTHREAD_MUTEX_INITIALIZER;
static int interrupts_users = 0;
static struct sigaction saved_interrupt, saved_quit;

static void ignore_interrupts(int *default_in_child) {
    pthread_mutex_lock(&interrupts_lock);
    if (interrupts_users++ == 0) {
        struct sigaction ignore;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGINT, &ignore, &saved_interrupt);
        sigaction(SIGQUIT, &ignore, &saved_quit);
    }
    // As glibc: the child gets SIG_DFL unless the signal was ignored before.
    *default_in_child = saved_interrupt.sa_handler != SIG_IGN;
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

/// system(command) for a non-NULL command: the wait status, or -1 with errno.
static int run_command(const char *command) {
    int default_in_child;
    ignore_interrupts(&default_in_child);
    sigset_t chld, mask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &chld, &mask);
    int status = -1;
    ShellStart start = {.command = command, .mask = mask, .default_interrupts = default_in_child, .from = -1, .to = -1};
    pid_t pid = spawn_shell(&start);
    int saved_errno = errno;
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                saved_errno = errno;
                status = -1;
                break;
            }
        }
    }
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

/// The stream's close (file:close() or its collection): waits for the program.
static int close_popen(lua_State *L) {
    PopenStream *p = (PopenStream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    fclose(p->stream.f);
    int status;
    while (waitpid(p->pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = -1;
            break;
        }
    }
    errno = 0;
    return luaL_execresult(L, status);
}

/// io.popen(command [, mode]), as liolib's: "r" reads the program's output, "w" writes its input.
static int guarded_popen(lua_State *L) {
    const char *command = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    luaL_argcheck(L, (mode[0] == 'r' || mode[0] == 'w') && mode[1] == '\0', 2, "invalid mode");
    PopenStream *p = (PopenStream *)lua_newuserdatauv(L, sizeof(PopenStream), 0);
    p->stream.f = NULL;
    p->stream.closef = NULL;  // closed until the program runs
    luaL_setmetatable(L, LUA_FILEHANDLE);
    int reading = mode[0] == 'r';
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return luaL_fileresult(L, 0, command);
    int mine = reading ? ends[0] : ends[1], theirs = reading ? ends[1] : ends[0];
    ShellStart start = {.command = command, .default_interrupts = 0, .from = theirs, .to = reading ? 1 : 0};
    pthread_sigmask(SIG_SETMASK, NULL, &start.mask);
    pid_t pid = spawn_shell(&start);
    int saved_errno = errno;
    close(theirs);
    if (pid < 0) {
        close(mine);
        errno = saved_errno;
        return luaL_fileresult(L, 0, command);
    }
    p->stream.f = fdopen(mine, mode);
    if (p->stream.f == NULL) {
        saved_errno = errno;
        close(mine);
        waitpid(pid, NULL, 0);
        errno = saved_errno;
        return luaL_fileresult(L, 0, command);
    }
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
    pthread_once(&inherited_once, remember_inherited);
    guard(L, "os", "execute", guarded_execute);
    guard(L, "io", "popen", guarded_popen);
}
