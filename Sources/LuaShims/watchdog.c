// SPDX-License-Identifier: Apache-2.0
// See include/luashims.h. Stack effects follow the Lua manual's notation: [-pop, +push, errors].
#define _GNU_SOURCE  // pipe2
#include "luashims.h"
#include "shims_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// MARK: - Watchdog

typedef struct {
    uint64_t ticket;
    lua_State *L;
    unsigned long gen;
    struct timespec deadline;
} wd_entry;

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static int wd_pipe[2] = {-1, -1};
static int sig_pipe[2] = {-1, -1};
static wd_entry *wd_entries;
static size_t wd_count, wd_capacity;
static uint64_t wd_next_ticket = 1;
static lua_State *wd_interrupt_target;
static volatile sig_atomic_t sigint_pending;
// What the watchdog sleeps until (under wd_lock): arming a later deadline need not wake it.
static int wd_sleeps_forever = 1;
static struct timespec wd_sleep_until;

static int before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

static void *watchdog_main(void *arg) {
    (void)arg;
    for (;;) {
        int timeout = -1;
        struct timespec now;
        pthread_mutex_lock(&wd_lock);
        clock_gettime(CLOCK_MONOTONIC, &now);
        wd_sleeps_forever = 1;
        for (size_t i = 0; i < wd_count; i++) {
            long long ms = (long long)(wd_entries[i].deadline.tv_sec - now.tv_sec) * 1000 +
                           (wd_entries[i].deadline.tv_nsec - now.tv_nsec) / 1000000 + 1;
            if (ms < 0) ms = 0;
            if (timeout < 0 || ms < timeout) timeout = (int)ms;
            if (wd_sleeps_forever || before(&wd_entries[i].deadline, &wd_sleep_until)) {
                wd_sleep_until = wd_entries[i].deadline;
                wd_sleeps_forever = 0;
            }
        }
        pthread_mutex_unlock(&wd_lock);
        struct pollfd pfd = {.fd = wd_pipe[0], .events = POLLIN};
        int n = poll(&pfd, 1, timeout);
        if (n > 0) authsh_drain(wd_pipe[0]);
        pthread_mutex_lock(&wd_lock);
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (size_t i = 0; i < wd_count;) {
            if (before(&wd_entries[i].deadline, &now)) {
                authsh_kill(wd_entries[i].L, wd_entries[i].gen, AUTHSH_KILL_TIMEOUT);
                wd_entries[i] = wd_entries[--wd_count];
            } else {
                i++;
            }
        }
        if (sigint_pending) {
            sigint_pending = 0;
            if (wd_interrupt_target) shims_kill_current_run(wd_interrupt_target, AUTHSH_KILL_INTERRUPT);
        }
        pthread_mutex_unlock(&wd_lock);
    }
    return NULL;
}

/// Close-on-exec from the start (pipe2): a program another thread runs meanwhile never holds it.
static int make_pipe(int fds[2]) { return authsh_pipe(fds) == 0; }

int authsh_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }

/// Set when the watchdog could not start (no pipe, no thread): deadlines cannot be kept, so
/// arming one fails and the run that needs it is refused (fail closed).
static int wd_failed;

static void watchdog_start(void) {
    if (!make_pipe(wd_pipe) || !make_pipe(sig_pipe)) {
        wd_failed = 1;
        return;
    }
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);  // the watchdog never takes a signal itself
    if (pthread_create(&thread, &attr, watchdog_main, NULL) != 0) wd_failed = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

static void wake_watchdog(void) {
    ssize_t ignored = write(wd_pipe[1], "a", 1);
    (void)ignored;
}

uint64_t authsh_watchdog_arm(lua_State *L, unsigned long gen, double seconds) {
    pthread_once(&wd_once, watchdog_start);
    if (wd_failed) return 0;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    long long ns = (long long)(seconds * 1e9);
    deadline.tv_sec += ns / 1000000000LL;
    deadline.tv_nsec += ns % 1000000000LL;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&wd_lock);
    if (wd_count == wd_capacity) {
        size_t capacity = wd_capacity ? wd_capacity * 2 : 16;
        wd_entry *grown = realloc(wd_entries, capacity * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&wd_lock);
            return 0;
        }
        wd_entries = grown;
        wd_capacity = capacity;
    }
    uint64_t ticket = wd_next_ticket++;
    wd_entries[wd_count++] = (wd_entry){.ticket = ticket, .L = L, .gen = gen, .deadline = deadline};
    // Wake the watchdog only if it would sleep past this deadline (one server call after
    // another arms deadlines later than the one it already waits for: no syscall then).
    int wake = wd_sleeps_forever || before(&deadline, &wd_sleep_until);
    if (wake) {
        wd_sleep_until = deadline;
        wd_sleeps_forever = 0;
    }
    pthread_mutex_unlock(&wd_lock);
    if (wake) wake_watchdog();
    return ticket;
}

void authsh_watchdog_disarm(uint64_t ticket) {
    pthread_mutex_lock(&wd_lock);
    for (size_t i = 0; i < wd_count; i++) {
        if (wd_entries[i].ticket == ticket) {
            wd_entries[i] = wd_entries[--wd_count];
            break;
        }
    }
    pthread_mutex_unlock(&wd_lock);
}

void shims_watchdog_forget(lua_State *L) {
    pthread_mutex_lock(&wd_lock);
    if (wd_interrupt_target == L) wd_interrupt_target = NULL;
    for (size_t i = 0; i < wd_count;) {
        if (wd_entries[i].L == L) wd_entries[i] = wd_entries[--wd_count];
        else i++;
    }
    pthread_mutex_unlock(&wd_lock);
}

void authsh_interrupt_target(lua_State *L) {
    pthread_mutex_lock(&wd_lock);
    wd_interrupt_target = L;
    pthread_mutex_unlock(&wd_lock);
}

static void on_sigint(int sig) {
    (void)sig;
    int saved = errno;
    sigint_pending = 1;
    ssize_t ignored = write(wd_pipe[1], "i", 1);
    ignored = write(sig_pipe[1], "i", 1);
    (void)ignored;
    errno = saved;
}

int authsh_install_sigint(void) {
    pthread_once(&wd_once, watchdog_start);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    // A parent may have left SIGINT blocked (the mask survives exec): unblock it here.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return sigaction(SIGINT, &sa, NULL);
}

int authsh_interrupt_fd(void) {
    pthread_once(&wd_once, watchdog_start);
    return sig_pipe[0];
}

void authsh_drain(int fd) {
    char buffer[64];
    while (read(fd, buffer, sizeof buffer) > 0) {}
}
