// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc

/// `authsh test [options] [PATH...]`: runs busted spec files, each in a process of its own
/// against a fresh embedded server (or the server `--server` names), `-j` at a time, and
/// reports them as one run. Exit 0 when every file passed, 1 when one did not, 64 for bad usage.
enum TestCommand {
    static let usage = """
        usage: authsh test [options] [PATH...]
        Runs busted spec files (*_spec.lua under spec/ and in the current directory, or under
        the PATHs), each in its own authsh process with a fresh embedded server.
          -j, --jobs N          run N files at once (default: the number of cores)
          -o, --output FORMAT   utfTerminal, plainTerminal, junit, tap or json (default: the
                                terminal's, plain when not a terminal or NO_COLOR is set)
          -p, --pattern PATTERN only files whose name matches this Lua pattern (default _spec)
          --filter PATTERN      only tests whose name matches (busted's --filter)
          --filter-out PATTERN  no test whose name matches
          -t, --tags TAGS       only tests with these tags (comma-separated)
          --exclude-tags TAGS   no test with these tags
          --server URL          run every file against this server (no isolation then)
          --plugins DIR         the embedded servers' plugins
          --app ID              the default app's id
          --firebase PROJECT    speak Firebase Auth's API as PROJECT (each embedded server's
                                app is then PROJECT)
          --api-key KEY         the Firebase project's Web API key
          --emulator HOST:PORT  run every file against this Firebase Auth emulator
          -h, --help            this text
        """

    /// Runs the command with the arguments after `test`; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        let options: TestOptions
        do {
            options = try TestOptions.parse(arguments)
        } catch {
            Output.error("authsh test: \(error.description)\n\(usage)")
            return ExitStatus.usage
        }
        if options.showHelp {
            print(usage)
            return 0
        }
        let files: [String]
        do {
            files = try SpecFiles(patterns: options.patterns.isEmpty ? ["_spec"] : options.patterns).find(options.paths)
        } catch {
            Output.error("authsh test: \(error.description)\n\(usage)")
            return ExitStatus.usage
        }
        guard !files.isEmpty else {
            Output.error("authsh test: no spec files found (files named like *_spec.lua, under spec/ or the paths given)")
            return ExitStatus.failure
        }
        guard let program = ServerProgram.executable else {
            Output.error("authsh test: /proc/self/exe does not say where authsh is")
            return ExitStatus.failure
        }
        guard let scratch = makeScratch() else {
            Output.error("authsh test: cannot make a temporary directory: \(String(cString: strerror(errno)))")
            return ExitStatus.failure
        }
        defer { Files.removeTree(scratch) }
        // The spec files' auth errors name the request that failed (inherited by each process).
        setenv("AUTHSH_ERROR_REQUEST", "1", 1)
        let format = options.format ?? .terminal(Output.useColor ? "utfTerminal" : "plainTerminal")
        let runner = SpecRunner(
            program: program, authshOptions: options.authshOptions,
            bustedOptions: ["-o", format.handler] + options.bustedOptions, scratch: scratch,
            jobs: options.jobs ?? max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), separateErrors: format.isDocument)
        var report = SpecReport(format: format)
        var allPassed = true
        do {
            try runner.run(files) { run in
                if !run.passed { allPassed = false }
                report.add(run) { text in Output.write(1, text) }
                if !run.errors.isEmpty { Output.write(2, String(decoding: run.errors, as: UTF8.self)) }
            }
        } catch {
            Output.error("authsh test: \(error.description)")
            return ExitStatus.failure
        }
        Output.write(1, report.finish(files: files.count))
        return allPassed ? 0 : ExitStatus.failure
    }

    /// A new directory only this user can enter, under `TMPDIR` or `/tmp`.
    private static func makeScratch() -> String? {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/authsh-test-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { return nil }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `authsh test`'s command line.
struct TestOptions {
    var paths: [String] = []
    var jobs: Int?
    var format: SpecFormat?
    var patterns: [String] = []
    /// Options for each file's `authsh`: `--server`, `--plugins`, `--app`.
    var authshOptions: [String] = []
    /// busted's own options passed on: filters and tags.
    var bustedOptions: [String] = []
    var showHelp = false

    static func parse(_ argv: [String]) throws(TestUsageError) -> TestOptions {
        var options = TestOptions()
        var i = 0
        var inline: String?
        func value(_ option: String) throws(TestUsageError) -> String {
            if let inline { return inline }
            i += 1
            guard i < argv.count else { throw TestUsageError("'\(option)' needs an argument") }
            return argv[i]
        }
        var onlyPaths = false
        while i < argv.count {
            var option = argv[i]
            inline = nil
            if onlyPaths || !option.hasPrefix("-") || option == "-" {
                options.paths.append(option)
                i += 1
                continue
            }
            if option == "--" {
                onlyPaths = true
                i += 1
                continue
            }
            if option.hasPrefix("--"), let equals = option.firstIndex(of: "=") {
                inline = String(option[option.index(after: equals)...])
                option = String(option[..<equals])
            }
            switch option {
            case "-h", "--help": options.showHelp = true
            case "-j", "--jobs":
                let text = try value(option)
                guard let n = Int(text), (1...256).contains(n) else { throw TestUsageError("\(option) needs a number from 1 to 256, not '\(text)'") }
                options.jobs = n
            case "-o", "--output":
                let name = try value(option)
                guard let format = SpecFormat(name) else {
                    throw TestUsageError("\(option): unknown format '\(name)' (utfTerminal, plainTerminal, junit, tap, json)")
                }
                options.format = format
            case "-p", "--pattern": options.patterns.append(try value(option))
            case "--filter", "--filter-out", "--exclude-tags":
                options.bustedOptions += [option, try value(option)]
            case "-t", "--tags": options.bustedOptions += ["--tags", try value(option)]
            case "--server", "--plugins", "--app", "--firebase", "--api-key", "--emulator":
                options.authshOptions += [option, try value(option)]
            default: throw TestUsageError("unrecognized option '\(argv[i])'")
            }
            i += 1
        }
        return options
    }
}
