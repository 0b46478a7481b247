// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Foundation

/// One plugin file as read from the plugins directory.
struct PluginFile: Sendable, Equatable {
    /// `reset` for `reset.lua`: the name a file that returns a function exports.
    var name: String
    var fileName: String
    var source: [UInt8]

    /// Plugin files are text and small.
    static let maxBytes = 1 << 20
}

/// The plugin files loaded now and the functions they export.
struct PluginSet: Sendable {
    var files: [PluginFile] = []
    /// Function name to the file that exports it.
    var exports: [String: String] = [:]
    /// Bumped by every reload; pooled states of older generations are dropped.
    var generation = 0

    /// Every `*.lua` file of `directory`, sorted by name; a missing directory has none.
    /// - Throws: a message naming the file that cannot be read or is too large.
    static func scan(_ directory: String) throws(PluginScanError) -> [PluginFile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { throw PluginScanError(path: directory, reason: "is not a directory") }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw PluginScanError(path: directory, reason: "cannot be listed")
        }
        var files: [PluginFile] = []
        for fileName in names.sorted() where fileName.hasSuffix(".lua") && !fileName.hasPrefix(".") {
            let path = directory + "/" + fileName
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            guard info.st_size <= PluginFile.maxBytes else {
                throw PluginScanError(path: path, reason: "is larger than \(PluginFile.maxBytes >> 20) MiB")
            }
            // Read from a descriptor whose type is checked again: a file swapped for a FIFO
            // since the stat is refused, not waited on.
            let source: [UInt8]
            do { source = try RegularFile.read(path, limit: PluginFile.maxBytes) } catch {
                throw PluginScanError(path: path, reason: error.reason)
            }
            files.append(PluginFile(name: String(fileName.dropLast(4)), fileName: fileName, source: source))
        }
        return files
    }
}

/// A plugins directory or file that cannot be read.
struct PluginScanError: Error, Sendable {
    var path: String
    var reason: String
}
