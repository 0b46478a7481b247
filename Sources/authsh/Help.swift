// SPDX-License-Identifier: Apache-2.0
import Lua

/// The texts of `--help`, `--version` and bad usage.
enum Help {
    static let versionLine = "authsh \(Authsh.version) (\(LuaState.version))"

    static let usage = """
        usage: authsh [options] [script [args]]
        Try 'authsh --help' for more.
        """

    static let text = """
        authsh \(Authsh.version): a Lua scripting host for authentication flows.

        Usage: authsh [options] [script [args]]

        Modes:
          authsh                    REPL when stdin is a terminal (else runs stdin as a script)
          authsh FILE.lua [ARGS]    run a script; ARGS are in the global `arg` and in `...`
          authsh -e 'CHUNK'         run a chunk (repeatable; runs before the script)
          authsh -                  run standard input as a script
          authsh -i FILE.lua        enter the REPL after the script
          authsh test [PATH...]     run busted spec files, each against a fresh embedded
                                    server (authsh test --help)
          authsh serve [...]        run the auth server alone (authsh serve --help)
          authsh admin [...] CMD    administer users (authsh admin --help)
          authsh audit [...]        read the audit log (authsh audit --help)

        Options:
          -e CHUNK        execute the string CHUNK
          -l NAME         require library NAME into global NAME
          -i              enter interactive mode after running the script
          -E              ignore LUA_INIT, LUA_PATH and LUA_CPATH
          -v, --version   print the version
          -h, --help      print this help
          --server URL    talk to the server at URL instead of the embedded one
          --app ID        the app to use (default: local)
          --firebase PROJECT
                          speak Firebase Auth's API as PROJECT: to the embedded server (its
                          app is then PROJECT), --server, or --emulator HOST:PORT
          --api-key KEY   the Firebase project's Web API key (an emulator takes any)
          --emulator HOST:PORT
                          the Firebase Auth emulator to talk to (with --firebase)
          --data DIR      where authsh keeps its data: the user store, the embedded server's
                          database (DIR/server) and the REPL history; default $AUTHSH_DATA,
                          else $XDG_DATA_HOME/authsh, else ~/.local/share/authsh
          --plugins DIR   the embedded server's Lua plugins (default: ./plugins, if it exists)
          --json          print writes tables as JSON
          --              stop handling options

        With no --server, authsh starts its own auth server (dev mode, 127.0.0.1, an ephemeral
        port) the first time a script makes a request; it stops when authsh exits.

        In the REPL: an expression prints its values (`_` holds the first); Tab completes
        globals, fields after `.` and methods after `:`; Ctrl-C interrupts running code;
        Ctrl-D or .exit leaves; .help shows the REPL's help. Lines that mention a password,
        token or secret are not saved in the history file.

        Globals: app, credentials, auth, and the verbs login, signIn, linkIdentity, register,
        confirm, resetPassword, callResetFunction, switchUser, logout, whoami, users, outbox.
        signIn("github") signs in with an identity provider in the browser (the embedded
        server's dev identity provider stands in for GitHub and Google); {device = true} shows
        a code instead, {as = {email = ...}} approves with no browser; auth.http{url =, headers =}
        calls the provider's API with user.providerTokens.accessToken.
        Async helpers: auth.spawn(f, ...) starts a task, auth.wait(t, ...) waits for tasks,
        auth.sleep(seconds) pauses the current task while others run.

        Environment: AUTHSH_SERVER, AUTHSH_APP (as --server, --app), AUTHSH_DATA (data
        directory), NO_COLOR (no colors in the REPL), AUTHSH_ERROR_REQUEST=1 (auth errors
        name the request that failed).
        Exit status: 0 ok, 1 a Lua error (message and traceback on stderr), 64 bad usage,
        or the value given to os.exit.

        Examples:
          authsh -e 'print(login(credentials.anonymous()))'
          authsh scripts/recipes/signup.lua
          authsh --server http://127.0.0.1:9090 --app local
        """

    static let repl = """
        .help       this text
        .help NAME  what a binding takes, returns and does (.help login, .help auth.dev,
                    .help User, .help User:unlink)
        .users      the users this client knows (* marks the current one)
        .whoami     the current user and its identities (provider, email, id)
        .outbox [EMAIL]  the dev server's outbox (mails, and codes texted to phones)
        .save FILE  write the statements that ran without an error as a script (authsh FILE
                    replays it; auth.password() prompts again)
        signIn("github")  sign in with GitHub (the dev identity provider on the embedded
                    server); {as = {email = "ada@example.com"}} skips the browser,
                    {device = true} shows a code; Ctrl-C cancels a sign-in that waits
        .exit       leave (or Ctrl-D)
        An expression prints its values; `_` holds the first (after an auth error, the
                    error: for AccountExistsWithDifferentCredential, the line printed
                    signs in and runs linkIdentity(_.credential)). A statement runs as is.
        An incomplete statement continues on a `>>` prompt. Tab completes names.
        Ctrl-C interrupts running code, or clears the line being typed.
        """
}
