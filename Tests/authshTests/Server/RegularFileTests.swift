// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// Every file authsh reads from its command line or config must be a regular file, and a FIFO
/// (or a device) named by mistake is refused at once, never waited on: the TLS files, the
/// config, the secrets and plugins it names, a backup to restore, an import file.
@Suite(.binary, .timeLimit(.minutes(5))) struct RegularFileTests {
    /// Runs `arguments` while a watchdog opens `fifo` for writing now and then, without waiting:
    /// that open succeeds only while a reader waits on the FIFO, and lets that reader go on (it
    /// then reads nothing), so a command that hangs on it is seen and does not hang the suite.
    static func run(_ arguments: [String], fifo: String) async throws -> (Binary.Result, waited: Bool) {
        let watchdog = Task.detached {
            var waited = false
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 {
                    waited = true
                    close(fd)
                }
            }
            return waited
        }
        let result = try await Binary.run(arguments)
        watchdog.cancel()
        return (result, await watchdog.value)
    }

    @Test func aFIFOIsRefusedNotWaitedOn() async throws {
        let dir = try Binary.temporaryDirectory()
        let certificate = try TestCertificate(directory: dir)
        let fifo = dir + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        try Binary.write(#"{"apps": [{"id": "a"}], "database": {"file": "\#(fifo)"}}"#, to: dir + "/secret.json")
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["serve", "--tls-cert", certificate.certFile, "--tls-key", fifo, "--check"], 78, "tls.keyFile: \(fifo) is a FIFO"),
            (["serve", "--tls-cert", fifo, "--tls-key", certificate.keyFile, "--check"], 78, "tls.certFile: \(fifo) is a FIFO"),
            (["serve", "--config", fifo, "--check"], 78, "config \(fifo) is a FIFO"),
            (["serve", "--config", dir + "/secret.json", "--check"], 78, "\(fifo) is a FIFO"),
            (["serve", "--database", "sqlite:" + fifo, "migrate"], 78, "\(fifo) is not a regular file"),
            (["admin", "--data", dir + "/data", "restore", fifo], 1, "\(fifo) is a FIFO"),
            (["admin", "--data", dir + "/imported", "import", fifo], 1, "\(fifo) is a FIFO"),
        ]
        for (arguments, status, says) in cases {
            let (result, waited) = try await Self.run(arguments, fifo: fifo)
            #expect(!waited, "\(arguments.joined(separator: " ")) waited on the FIFO")
            #expect(result.status == status && result.stderr.contains(says), "\(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }
}
