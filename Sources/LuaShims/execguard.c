// os.execute and io.popen in the trusted profile: before either runs a program, every socket
// and every anonymous inode (epoll, eventfd, timerfd) from descriptor 3 up is made
// close-on-exec, so the program holds none of the host's. SwiftNIO opens its sockets and its
// epoll without close-on-exec; without this, a program a script runs would hold the client's
// HTTP connections (answers carrying tokens could be read there, and `os.execute("daemon &")`
// would keep them open after authsh ends). Files and pipes pass as under lua5.4: a script's
// open files, a descriptor authsh was started with (`3>log`, make's jobserver pipe).
#include "shims_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

/// Marks the sockets and anonymous inodes from descriptor 3 up close-on-exec.
static void cloexec_host_descriptors(void) {
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
        if (n <= 0) continue;
        target[n] = 0;
        if (strncmp(target, "socket:", 7) != 0 && strncmp(target, "anon_inode:", 11) != 0) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    closedir(dir);
}

/// The guarded function: the original (upvalue 1), called on the same stack.
static int guarded(lua_State *L) {
    lua_CFunction original = lua_tocfunction(L, lua_upvalueindex(1));
    cloexec_host_descriptors();
    return original(L);
}

/// Replaces `library.name` with its guarded version, when it is a C function. [-0, +0, m]
static void guard(lua_State *L, const char *library, const char *name) {
    if (lua_getglobal(L, library) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_getfield(L, -1, name);
    if (lua_tocfunction(L, -1) != NULL) {
        lua_pushcclosure(L, guarded, 1);
        lua_setfield(L, -2, name);
    } else {
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

void shims_guard_exec(lua_State *L) {
    guard(L, "os", "execute");
    guard(L, "io", "popen");
}
