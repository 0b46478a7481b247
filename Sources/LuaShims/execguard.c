// os.execute and io.popen in the trusted profile: before either runs a program, every socket
// and every anonymous inode (epoll, eventfd, timerfd) from descriptor 3 up that authsh opened
// itself is made close-on-exec, so the program holds none of the host's. SwiftNIO opens its
// sockets and its epoll without close-on-exec; without this, a program a script runs would
// hold the client's HTTP connections (answers carrying tokens could be read there, and
// `os.execute("daemon &")` would keep them open after authsh ends). Everything else passes as
// under lua5.4: a script's open files and pipes, and whatever authsh was started with (`3>log`,
// make's jobserver pipe, a socket from systemd), which a list taken when the first trusted state
// opens its libraries remembers: in authsh that is before the client has opened any socket, and
// a process with no trusted state (authsh-server) never reads the list.
//
// The guarded functions are light C functions, as the originals are (no upvalue to read or
// replace with the debug library). A socket a SwiftNIO thread opens between the walk and the
// fork is still inherited: the walk narrows the window, it cannot close it.
#include "shims_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

/// The descriptors from 3 up that the process was started with (at most this many);
/// `inherited_all` is false when there were more.
#define INHERITED_MAX 64
static int inherited[INHERITED_MAX];
static int inherited_count = 0;
static int inherited_all = 1;

static int is_inherited(int fd) {
    for (int i = 0; i < inherited_count; i++) if (inherited[i] == fd) return 1;
    return !inherited_all;  // too many to list: leave every one alone rather than cut one off
}

/// Calls `visit(fd, target)` for each descriptor from 3 up, with what /proc/self/fd says it is.
static void each_descriptor(void (*visit)(int fd, const char *target)) {
    DIR *dir = opendir("/proc/self/fd");
    if (!dir) return;
    int own = dirfd(dir);
    struct dirent *entry;
    char target[64];
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd < 3 || fd == own) continue;
        ssize_t n = readlinkat(own, entry->d_name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        visit(fd, target);
    }
    closedir(dir);
}

static void remember(int fd, const char *target) {
    (void)target;
    if (inherited_count < INHERITED_MAX) inherited[inherited_count++] = fd;
    else inherited_all = 0;
}

/// What the process was started with (one short directory read, once).
static pthread_once_t inherited_once = PTHREAD_ONCE_INIT;
static void remember_inherited(void) { each_descriptor(remember); }

static void mark_if_host(int fd, const char *target) {
    if (strncmp(target, "socket:", 7) != 0 && strncmp(target, "anon_inode:", 11) != 0) return;
    if (is_inherited(fd)) return;
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static lua_CFunction original_execute;
static lua_CFunction original_popen;

static int guarded_execute(lua_State *L) {
    each_descriptor(mark_if_host);
    return original_execute(L);
}

static int guarded_popen(lua_State *L) {
    each_descriptor(mark_if_host);
    return original_popen(L);
}

/// Replaces `library.name` (a C function, kept in `*original`) with `guarded`. [-0, +0, m]
static void guard(lua_State *L, const char *library, const char *name, lua_CFunction *original, lua_CFunction guarded) {
    if (lua_getglobal(L, library) == LUA_TTABLE) {
        lua_getfield(L, -1, name);
        lua_CFunction found = lua_tocfunction(L, -1);
        lua_pop(L, 1);
        // Every state opens the same library: the first one's function is every one's.
        if (found != NULL && (*original == NULL || *original == found)) {
            *original = found;
            lua_pushcfunction(L, guarded);
            lua_setfield(L, -2, name);
        }
    }
    lua_pop(L, 1);
}

void shims_guard_exec(lua_State *L) {
    pthread_once(&inherited_once, remember_inherited);
    guard(L, "os", "execute", &original_execute, guarded_execute);
    guard(L, "io", "popen", &original_popen, guarded_popen);
}
