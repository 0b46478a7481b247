#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# $BROWSER for the sign-in test: sign-in-browser.py under the tests' Python (.build/venv).
# A file of the repository, not one the test writes: a file just written can still be open for
# writing in a child another test is spawning, and exec refuses it then (ETXTBSY).
here=$(dirname "$0")
exec "$here/../../.build/venv/bin/python3" "$here/sign-in-browser.py" "$@"
