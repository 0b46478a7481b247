// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The process's command line.
public enum ProcessArguments {
    /// `CommandLine.arguments`, or exit 71 with a message naming `program` when there are none.
    /// Swift's runtime reads the command line from /proc/self/cmdline, missing where /proc is
    /// not mounted (a bare chroot or container): the command would run as if given no argument
    /// (`authsh -e CODE` read standard input and exited 0), and libdispatch, which reads /proc
    /// too, would crash it later.
    public static func orExit(program: String) -> [String] {
        let arguments = CommandLine.arguments
        if arguments.isEmpty {
            Output.error("\(program): cannot read the command line: /proc is not mounted, and \(program) needs it")
            exit(ExitStatus.system)
        }
        return arguments
    }
}
