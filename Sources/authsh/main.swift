// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc

let arguments = ProcessArguments.orExit(program: "authsh")
if arguments.count > 1 && ServerProgram.commands.contains(arguments[1]) {
    exit(ServerProgram.exec(Array(arguments.dropFirst())))
}
if arguments.count > 1 && arguments[1] == "test" {
    exit(TestCommand.main(Array(arguments.dropFirst(2))))
}
exit(Authsh.main(arguments))
