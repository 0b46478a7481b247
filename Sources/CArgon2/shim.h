// SPDX-License-Identifier: Apache-2.0
#ifndef AUTHSH_CARGON2_SHIM_H
#define AUTHSH_CARGON2_SHIM_H
#include <argon2.h>
#endif
