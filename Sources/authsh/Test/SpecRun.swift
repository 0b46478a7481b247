// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import CommandSupport
import Glibc
import Spawn

/// One spec file run in a process of its own: `authsh` with a data directory of its own (so a
/// fresh embedded server and user store), busted's runner, and the file.
struct SpecRun {
    /// The spec file.
    let file: String
    /// What the process printed: its standard output, and its standard error interleaved as
    /// written unless the runner keeps them apart (then in ``errors``).
    var output: [UInt8] = []
    /// Its standard error, when kept apart from its output.
    var errors: [UInt8] = []
    /// Its results as the helper wrote them, or nil when the process ended without writing
    /// them (it crashed, or busted refused its options).
    var results: EJSONDocument?
    /// Its counts, from ``results``.
    var counts: SpecCounts? { results.map(SpecCounts.init(results:)) }
    /// Its exit status (128 + the signal when one ended it).
    var status: Int32 = 0

    /// Whether the file passed: counts written, no failure or error, status 0.
    var passed: Bool { status == 0 && counts.map { $0.failures == 0 && $0.errors == 0 } == true }
}

/// What busted counted in one file, or in several added up.
struct SpecCounts: Equatable {
    var successes = 0
    var failures = 0
    var errors = 0
    var pendings = 0

    /// The lengths of the helper's lists.
    init(results: EJSONDocument) {
        successes = results["successes"]?.arrayValue?.count ?? 0
        failures = results["failures"]?.arrayValue?.count ?? 0
        errors = results["errors"]?.arrayValue?.count ?? 0
        pendings = results["pendings"]?.arrayValue?.count ?? 0
    }

    init() {}

    static func + (a: SpecCounts, b: SpecCounts) -> SpecCounts {
        var sum = a
        sum.successes += b.successes
        sum.failures += b.failures
        sum.errors += b.errors
        sum.pendings += b.pendings
        return sum
    }
}

/// Runs spec files, `jobs` processes at a time, and hands back each file's run in the order
/// of `files`, as soon as it and every file before it have finished.
struct SpecRunner {
    /// The `authsh` executable (this one).
    let program: String
    /// Options for each `authsh` before its script: `--server`, `--plugins`, `--app`.
    let authshOptions: [String]
    /// busted's options (output handler, filters), before the file.
    let bustedOptions: [String]
    /// A private scratch directory: the runner, the helper, and a directory per file.
    let scratch: String
    let jobs: Int
    /// Keep each process's standard error apart from its output (for documents read by programs).
    let separateErrors: Bool

    /// Runs every file; calls `finished` with each run, in file order.
    func run(_ files: [String], finished: (SpecRun) -> Void) throws(TestUsageError) {
        let runner = scratch + "/runner.lua", helper = scratch + "/helper.lua"
        guard Files.writePrivate(runner, SpecRunnerScripts.runner),
            Files.writePrivate(helper, SpecRunnerScripts.helper + SpecRunnerScripts.assertions + SpecRunnerScripts.fixtures)
        else {
            throw TestUsageError("cannot write to \(scratch)")
        }
        var runs = files.map { SpecRun(file: $0) }
        var running: [pid_t: Int] = [:]
        var done = Array(repeating: false, count: files.count)
        var next = 0, reported = 0
        while reported < files.count {
            while running.count < jobs && next < files.count {
                let index = next
                next += 1
                let directory = "\(scratch)/\(index)"
                mkdir(directory, 0o700)
                // The child has its own copies; this process reads the files once it has ended.
                let output = open(directory + "/output", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                let errors = separateErrors ? open(directory + "/errors", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) : output
                defer {
                    close(output)
                    if errors != output { close(errors) }
                }
                let arguments =
                    ["authsh", "--data", directory + "/data"] + authshOptions
                    + [runner, "--helper", helper, "-Xhelper", directory + "/results.json"] + bustedOptions
                    + [files[index].hasPrefix("-") ? "./" + files[index] : files[index]]
                switch ProgramSpawn.spawn(program, arguments: arguments, standardOutput: output, standardError: errors) {
                case .success(let pid):
                    running[pid] = index
                case .failure(let error):
                    runs[index].output = Array("authsh test: cannot start authsh: \(error)\n".utf8)
                    runs[index].status = 127
                    done[index] = true
                }
            }
            if !running.isEmpty {
                var status: Int32 = 0
                let pid = waitpid(-1, &status, 0)
                if pid < 0 {
                    if errno == EINTR { continue }
                    break
                }
                guard let index = running.removeValue(forKey: pid) else { continue }
                runs[index].status = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                runs[index].output = Files.read("\(scratch)/\(index)/output") ?? []
                if separateErrors { runs[index].errors = Files.read("\(scratch)/\(index)/errors") ?? [] }
                if let bytes = Files.read("\(scratch)/\(index)/results.json"), case .document(let results)? = try? EJSON(parsing: bytes) {
                    runs[index].results = results
                }
                done[index] = true
            }
            while reported < files.count && done[reported] {
                finished(runs[reported])
                reported += 1
            }
        }
    }
}
