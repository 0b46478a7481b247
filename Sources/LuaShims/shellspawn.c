// SPDX-License-Identifier: Apache-2.0
// `/bin/sh -c command` started for os.execute and io.popen (execguard.c), holding none of the
// sockets and anonymous inodes (epoll, eventfd, timerfd) authsh opened itself.
//
// The descriptors are sorted out in the child, between clone and exec, on the child's own copy
// of the descriptor table: a socket a SwiftNIO thread opens at any moment is either in that copy
// (and sorted out) or not in the child at all. Marking the parent's descriptors before calling
// system() or popen() left a window: a socket opened between the walk and the spawn was
// inherited. Passed as under lua5.4: files, pipes, and the sockets and anonymous inodes the
// process was started with (`3<>/dev/tcp/...`, a socket from systemd or inetd), which a list
// taken when the first trusted state opens its libraries remembers (in authsh, before the client
// has opened any). Kept back: every other socket, a C module's (luasocket's) included, since
// nothing tells it from authsh's.
//
// The child is started as glibc's posix_spawn starts one: clone(CLONE_VM | CLONE_VFORK) on a
// stack of its own, every signal blocked meanwhile (fork() would copy the page tables: twice
// os.execute's cost). It shares the parent's memory until execve, so it calls nothing but
// syscall(), resolved in the parent beforehand (a first call through the PLT would run the lazy
// binder in the child), and writes nothing of that memory but errno and `failure`.
#define _GNU_SOURCE  // clone
#include "shims_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/// The sockets and anonymous inodes the process was started with (from descriptor 0 up), with
/// what /proc/self/fd said each was, so that a socket number closed and reused by authsh is not
/// taken for the inherited one (an anonymous inode's link names no inode: `anon_inode:[eventpoll]`
/// is every epoll's, so for those the number decides); past INHERITED_MAX they are kept back. Written once
/// (pthread_once) before any reader; read by the children without a lock.
#define INHERITED_MAX 64
#define TARGET_MAX 64
static int inherited[INHERITED_MAX];
static char inherited_target[INHERITED_MAX][TARGET_MAX];
static int inherited_count = 0;

static int starts_with(const char *text, const char *prefix) {
    while (*prefix)
        if (*text++ != *prefix++) return 0;
    return 1;
}

static int same_text(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static int is_host_kind(const char *target) {
    return starts_with(target, "socket:") || starts_with(target, "anon_inode:");
}

static int is_inherited(int fd, const char *target) {
    for (int i = 0; i < inherited_count; i++)
        if (inherited[i] == fd) return same_text(inherited_target[i], target);
    return 0;
}

/// getdents64's record.
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/// Calls `visit(fd, target)` for each descriptor, with what /proc/self/fd says it is ("" when
/// it cannot be read). System calls only: the child calls it. 0, or -1 when the walk failed.
static int each_descriptor(void (*visit)(int fd, const char *target)) {
    int dir = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return -1;
    _Alignas(8) char entries[2048];
    long n;
    while ((n = syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0) {
        for (long offset = 0; offset < n;) {
            struct linux_dirent64 *entry = (struct linux_dirent64 *)(entries + offset);
            offset += entry->d_reclen;
            const char *c = entry->d_name;
            if (*c < '0' || *c > '9') continue;
            int fd = 0;
            for (; *c >= '0' && *c <= '9'; c++) fd = fd * 10 + (*c - '0');
            if (fd == dir) continue;
            char target[TARGET_MAX];
            long length = syscall(SYS_readlinkat, dir, entry->d_name, target, sizeof target - 1);
            target[length > 0 ? length : 0] = 0;
            visit(fd, target);
        }
    }
    syscall(SYS_close, dir);
    return n == 0 ? 0 : -1;
}

static void remember(int fd, const char *target) {
    if (!is_host_kind(target) || inherited_count == INHERITED_MAX) return;
    inherited[inherited_count] = fd;
    strncpy(inherited_target[inherited_count], target, TARGET_MAX - 1);
    inherited_count++;
}

static pthread_once_t inherited_once = PTHREAD_ONCE_INIT;
static void remember_inherited(void) {
    each_descriptor(remember);  // resolves syscall() here, in the parent, too
}

void shims_remember_inherited(void) { pthread_once(&inherited_once, remember_inherited); }

// MARK: - The child, between clone and exec

/// The kernel's struct sigaction (rt_sigaction takes it, not glibc's).
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

static void set_action(int signal, void (*handler)(int)) {
    struct kernel_sigaction action;
    action.handler = handler;
    action.flags = 0;
    action.restorer = NULL;
    action.mask = 0;
    syscall(SYS_rt_sigaction, signal, &action, NULL, sizeof action.mask);
}

/// An unreadable target (""), the inherited list notwithstanding, is kept back too.
static void cloexec_if_host(int fd, const char *target) {
    if ((target[0] == 0 || is_host_kind(target)) && !is_inherited(fd, target)) {
        long flags = syscall(SYS_fcntl, fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) syscall(SYS_fcntl, fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

static _Noreturn void fail(shims_shell_start *start, int error) {
    start->failure = error;
    syscall(SYS_exit_group, 127);
    __builtin_unreachable();
}

/// Every caught signal back to its default (a handler would run on the parent's memory), glibc's
/// internal ones ignored, SIGINT and SIGQUIT as asked; the pipe end in place; the descriptors
/// sorted out; the mask; then `/bin/sh -c command`.
static int shell_child(void *argument) {
    shims_shell_start *start = argument;
    for (int signal = 1; signal < _NSIG; signal++) {
        struct kernel_sigaction current;
        if (signal >= 32 && signal < start->first_realtime) {
            set_action(signal, SIG_IGN);
        } else if (syscall(SYS_rt_sigaction, signal, NULL, &current, sizeof current.mask) == 0 &&
                   current.handler != SIG_IGN && current.handler != SIG_DFL) {
            set_action(signal, SIG_DFL);
        }
    }
    if (start->default_interrupt) set_action(SIGINT, SIG_DFL);
    if (start->default_quit) set_action(SIGQUIT, SIG_DFL);
    if (start->from >= 0) {
        long done = start->from == start->to ? syscall(SYS_fcntl, start->from, F_SETFD, 0)
                                              : syscall(SYS_dup3, start->from, start->to, 0);
        if (done < 0) fail(start, *start->error);
    }
    if (each_descriptor(cloexec_if_host) != 0) {
        static const char message[] = "authsh: cannot read /proc/self/fd to keep authsh's sockets from the program; it was not run\n";
        syscall(SYS_write, 2, message, sizeof message - 1);
        fail(start, ENOENT);
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &start->mask, NULL, sizeof start->mask);
    char *const argv[] = {"sh", "-c", (char *)start->command, NULL};
    syscall(SYS_execve, "/bin/sh", argv, environ);
    fail(start, *start->error);
}

pid_t shims_spawn_shell(shims_shell_start *start) {
    shims_remember_inherited();
    start->failure = 0;
    start->first_realtime = SIGRTMIN;
    start->error = &errno;
    const size_t size = 64 * 1024;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    uint64_t all = ~(uint64_t)0, old;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof all);  // glibc's internal signals too
    pid_t pid = clone(shell_child, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, start);
    int saved_errno = pid < 0 ? errno : 0;  // the child's calls may have set errno
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old);
    munmap(stack, size);
    errno = saved_errno;
    return pid;
}
