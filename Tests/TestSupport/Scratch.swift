// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where tests keep their files: fresh names under the system's temporary directory, one way
/// for every test target.
public enum Scratch {
    /// A new empty directory, private to this user (mode 0700), named `authsh-LABEL-UUID`.
    public static func directory(_ label: String) throws -> String {
        let path = self.path(label)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// A new name, `authsh-LABEL-UUID`, with nothing made there (a file a test will write, or
    /// a path that must not exist).
    public static func path(_ label: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("authsh-\(label)-\(UUID().uuidString)").path
    }
}

/// A scratch directory removed with its contents when the last reference goes.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "test") throws { path = try Scratch.directory(label) }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Every file under the directory whose name ends with `suffix`.
    public func files(endingWith suffix: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(suffix) }.map { path + "/" + $0 }
    }
}
