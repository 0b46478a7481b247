import CommandSupport
import Glibc

let arguments = ProcessArguments.orExit(program: "authsh")
if arguments.count > 1 && ServerProgram.commands.contains(arguments[1]) {
    exit(ServerProgram.exec(Array(arguments.dropFirst())))
}
exit(Authsh.main(arguments))
