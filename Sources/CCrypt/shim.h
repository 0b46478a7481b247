// SPDX-License-Identifier: Apache-2.0
// libxcrypt (Debian's libcrypt): bcrypt verification of imported password hashes.
#ifndef AUTHSH_CCRYPT_SHIM_H
#define AUTHSH_CCRYPT_SHIM_H
#include <crypt.h>
#endif
