// SPDX-License-Identifier: Apache-2.0
#ifndef CLINUX_H
#define CLINUX_H

#include <spawn.h>

/* Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE). */

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so a program another thread
   runs meanwhile never holds them. 0, or -1 with errno. */
int clinux_pipe_cloexec(int fds[2]);

/* Has the spawn close every descriptor from `lowest` up in the child
   (posix_spawn_file_actions_addclosefrom_np, glibc 2.34). 0, or an errno. */
int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
