#ifndef CLINUX_H
#define CLINUX_H

/* Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE). */

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so a program another thread
   runs meanwhile never holds them. 0, or -1 with errno. */
int clinux_pipe_cloexec(int fds[2]);

/* Closes every descriptor from `lowest` up (close_range, Linux 5.9), falling back to the ones
   /proc/self/fd lists. */
void clinux_close_from(int lowest);

#endif
