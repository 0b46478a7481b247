import Glibc

exit(Authsh.main(Array(CommandLine.arguments)))
