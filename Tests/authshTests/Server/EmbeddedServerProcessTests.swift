// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The embedded dev server runs as `authsh-server embedded`, a child of `authsh`: it is there
/// only once a script needs it, it never shows its admin key to other local users, and it goes
/// when `authsh` goes, however `authsh` ends.
@Suite(.serialized, .binary, .timeLimit(.minutes(5))) struct EmbeddedServerProcessTests {
    @Test func theServerIsAChildThatEndsWithAuthshEvenWhenAuthshIsKilled() async throws {
        let data = try Binary.temporaryDirectory()
        let marker = data + "/descriptor5"
        let (process, input, output) = try Self.start(
            ["--data", data, "-e", #"login(credentials.anonymous()); io.write("ready\n"); io.flush(); io.read()"#], directory: data,
            descriptor5: marker)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let ready = try await Self.offPool(output) { $0.availableData }
        #expect(String(decoding: ready, as: UTF8.self) == "ready\n")

        let children = Self.children(of: process.processIdentifier)
        #expect(children.count == 1)
        let server = try #require(children.first)
        // Only what any local user may see (ps): no admin key on the command line.
        #expect(server.arguments == ["authsh-server", "embedded", "--data", data + "/server"])
        // Nothing authsh had open but its standard error: not the file on its descriptor 5.
        let held = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd")) ?? [])
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.pid)/fd/\($0)") }
        #expect(!held.isEmpty && !held.contains(marker), "\(held)")

        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while Self.isRunning(server.pid) && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!Self.isRunning(server.pid), "the server outlived authsh")
        try? input.fileHandleForWriting.close()
    }

    @Test func aServerThatDiedIsStartedAgainOnTheNextRequest() async throws {
        let data = try Binary.temporaryDirectory()
        let errors = Pipe()
        let (process, input, output) = try Self.start(
            [
                "--data", data, "-e",
                // Then what authsh holds: the dead server's stdin pipe must not be among it.
                #"local u = login(credentials.anonymous()); io.write("ready\n"); io.flush(); io.read(); "#
                    + #"u:refreshCustomData(); print("again", whoami().id == u.id); io.write(io.popen("ls -l /proc/$PPID/fd"):read("a"))"#,
            ], directory: data, standardError: errors)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(String(decoding: try await Self.offPool(output) { $0.availableData }, as: UTF8.self) == "ready\n")
        let first = try #require(Self.children(of: process.processIdentifier).first)
        let stdin = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(first.pid)/fd/0")
        #expect(stdin.hasPrefix("pipe:"))
        kill(first.pid, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while Self.isRunning(first.pid) && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // The next request starts another server on the same data: the session is still good.
        try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        let rest = try await Self.offPool(output) { $0.readDataToEndOfFile() }
        try await Binary.waitForExit(process)
        let said = String(decoding: try await Self.offPool(errors) { $0.readDataToEndOfFile() }, as: UTF8.self)
        let text = String(decoding: rest, as: UTF8.self)
        #expect(text.hasPrefix("again\ttrue\n"), "\(said)")
        #expect(text.contains("pipe:") && !text.contains(stdin), "\(stdin) still held:\n\(text)")
        #expect(process.terminationStatus == 0)
    }

    @Test func aServerThatCannotStartLeavesNoProcessBehind() async throws {
        let data = try Binary.temporaryDirectory()
        let (process, input, output) = try Self.start(
            [
                "--data", data, "--plugins", data + "/no-such-dir",
                "-e", #"print(pcall(login, credentials.anonymous())); io.write("ready\n"); io.flush(); io.read()"#,
            ], directory: data)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var said = ""
        while !said.hasSuffix("ready\n") {
            let chunk = try await Self.offPool(output) { $0.availableData }
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        // It was spawned, and said why it could not start.
        #expect(said.hasPrefix("false\t") && said.contains("the embedded server did not start") && said.contains("no-such-dir"), "\(said)")
        // Not even a zombie: the failed server was waited for.
        #expect(Self.children(of: process.processIdentifier).isEmpty)
        try input.fileHandleForWriting.close()
        try await Binary.waitForExit(process)
    }

    /// `read` of `pipe`'s reading end, which blocks, on a thread of its own.
    static func offPool(_ pipe: Pipe, _ read: @escaping @Sendable (FileHandle) -> Data) async throws -> Data {
        let handle = pipe.fileHandleForReading
        return try await Binary.offPool { read(handle) }
    }

    /// Copies a program through a close-on-exec descriptor: a child another test spawns
    /// meanwhile must not inherit it open for writing, or running the copy fails with "Text
    /// file busy" for as long as that child lives (`FileManager.copyItem` leaves it inheritable).
    static func copyExecutable(_ source: String, to destination: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw TerminalError(message: "cannot create \(destination): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                guard n > 0 else { throw TerminalError(message: "cannot write \(destination): \(String(cString: strerror(errno)))") }
                offset += n
            }
        }
    }

    /// Starts authsh with pipes for stdin and stdout (stderr to `standardError`, dropped by
    /// default); with `descriptor5`, with
    /// that file open for writing on descriptor 5 (through sh, which then becomes authsh).
    static func start(_ arguments: [String], directory: String, descriptor5: String? = nil, standardError: Any = FileHandle.nullDevice) throws
        -> (Process, Pipe, Pipe)
    {
        let process = Process()
        if let descriptor5 {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"exec 5>"$0"; exec "$@""#, descriptor5, Binary.path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Binary.path)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = standardError
        Binary.spawnLock.lock()
        defer { Binary.spawnLock.unlock() }
        try process.run()
        return (process, input, output)
    }

    @Test func withoutAuthshServerBesideItAuthshSaysWhatIsMissing() async throws {
        let directory = try Binary.temporaryDirectory()
        let alone = directory + "/authsh"
        try Self.copyExecutable(Binary.path, to: alone)
        let audit = try await Binary.run(["audit", "--data", directory + "/data"], executable: alone)
        #expect(audit.status == 1)
        #expect(audit.stderr.contains("audit needs authsh-server beside authsh: cannot run \(directory)/authsh-server"), "\(audit.stderr)")
        let script = try await Binary.run(["--data", directory + "/data", "-e", "login(credentials.anonymous())"], executable: alone)
        #expect(script.status == 1)
        #expect(
            script.stderr.contains("EmbeddedServerFailed: the embedded server did not start: cannot run \(directory)/authsh-server"),
            "\(script.stderr)")
    }

    /// The processes whose parent is `pid`, with their command lines.
    static func children(of pid: Int32) -> [(pid: Int32, arguments: [String])] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> (pid: Int32, arguments: [String])? in
            guard let child = Int32(entry), let fields = statFields(child), fields.count > 1, fields[1] == String(pid),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(child)/cmdline")
            else { return nil }
            let arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
            return (child, arguments)
        }
    }

    /// Running: there (signal 0 reaches it), and not a zombie its parent could reap. A killed
    /// process's main thread shows `Z` while its other threads are still ending, and until they
    /// have its parent cannot reap it. A stat file that cannot be read says nothing: running.
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let fields = statFields(pid), let state = fields.first else { return true }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.count ?? 0
        return !(state == "Z" || state == "X") || threads > 1
    }

    /// /proc/PID/stat's fields after the command's name: state, parent, ...
    private static func statFields(_ pid: Int32) -> [String]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").map(String.init)
    }
}
