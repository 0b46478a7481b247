// SPDX-License-Identifier: Apache-2.0
// GNU readline and history for Swift. Readline is GPL: only the authsh executable's
// LineEditor uses it, behind a small seam.
#ifndef AUTHSH_CREADLINE_SHIM_H
#define AUTHSH_CREADLINE_SHIM_H
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>
#endif
