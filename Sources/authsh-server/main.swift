// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc

// authsh-server COMMAND ...: the server's commands, run by `authsh serve|admin|audit`, and
// `embedded`, the dev server authsh starts for its scripts.
let arguments = ProcessArguments.orExit(program: "authsh-server")
let rest = Array(arguments.dropFirst(2))
switch arguments.count > 1 ? arguments[1] : "" {
case "serve": exit(Serve.main(rest))
case "admin": exit(Admin.main(rest))
case "audit": exit(Audit.main(rest))
case "embedded": exit(Embedded.main(rest))
case "--experimental-dump-help", "--generate-completion-script":
    // The whole tree, for the man pages and shell completions (scripts/package).
    CommandLineReference.main(Array(arguments.dropFirst()))
case "--help", "-h":
    print("usage: authsh-server serve|admin|audit ...   (the same as authsh serve|admin|audit; --help after one says more)")
    exit(0)
case let command:
    Output.error(
        "authsh-server: \(command.isEmpty ? "a command is needed" : "unknown command '\(command)'")\nusage: authsh-server serve|admin|audit ...")
    exit(ExitStatus.usage)
}
