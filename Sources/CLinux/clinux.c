#define _GNU_SOURCE
#include "clinux.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int clinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

void clinux_close_from(int lowest) {
    if (close_range((unsigned)lowest, ~0U, 0) == 0) return;
    DIR *dir = opendir("/proc/self/fd");
    if (!dir) return;
    int own = dirfd(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        int fd = atoi(entry->d_name);
        if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9' && fd >= lowest && fd != own) close(fd);
    }
    closedir(dir);
}
