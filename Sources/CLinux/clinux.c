// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "clinux.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

int clinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
