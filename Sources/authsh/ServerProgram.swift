// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc

/// `authsh-server`, the program that holds the server: `authsh serve`, `admin` and `audit` run
/// it in place of this process, and the embedded dev server is a child running it. Keeping the
/// server out of `authsh` keeps `authsh` as quick to start as a Lua host (docs/benchmarks.md).
/// It sits in the directory that holds the `authsh` executable (symlinks resolved).
enum ServerProgram {
    /// The subcommands that are authsh-server's.
    static let commands: Set<String> = ["serve", "admin", "audit"]

    /// The program's path: `authsh-server` beside this executable. Nil when this executable
    /// cannot say where it is (no /proc): never a bare name, which would run whatever
    /// `authsh-server` the current directory holds.
    static var path: String? {
        guard let me = executable, let slash = me.lastIndex(of: "/") else { return nil }
        return me[...slash] + "authsh-server"
    }

    /// This executable's absolute path (symlinks resolved), from /proc; nil without it.
    static var executable: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let me = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return me.hasPrefix("/") ? me : nil
    }

    /// Why it cannot be run, for an error message: where it was looked for.
    static func missing(_ program: String?, errno code: Int32) -> String {
        guard let program else { return "cannot find authsh-server: /proc/self/exe does not say where authsh is" }
        return "cannot run \(program) (\(String(cString: strerror(code))))"
    }

    /// Runs `authsh-server arguments...` in place of this process. Returns only when it
    /// cannot: the status to exit with, after saying why on stderr.
    static func exec(_ arguments: [String]) -> Int32 {
        let program = path
        if let program {
            let argv = (["authsh-server"] + arguments).map { strdup($0) } + [nil]
            execv(program, argv)
        }
        Output.error("authsh: \(arguments.first ?? "") needs authsh-server beside authsh: \(missing(program, errno: errno))")
        return ExitStatus.failure
    }
}
