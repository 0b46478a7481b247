import Glibc

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "serve" {
    exit(Serve.main(Array(arguments.dropFirst(2))))
}
if arguments.count > 1 && arguments[1] == "admin" {
    exit(Admin.main(Array(arguments.dropFirst(2))))
}
if arguments.count > 1 && arguments[1] == "audit" {
    exit(Audit.main(Array(arguments.dropFirst(2))))
}
exit(Authsh.main(arguments))
