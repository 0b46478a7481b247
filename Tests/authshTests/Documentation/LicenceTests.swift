// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The project is under the Apache License 2.0: `LICENSE` holds its text, `NOTICE` names the
/// bundled parts, and every source file of the project's own says so in its first lines with an
/// SPDX identifier (Lua's forks in `Sources/LuaShims` with Lua's MIT licence too).
/// `scripts/package --check` checks the package's side: the DEP-5 copyright file, and libxcrypt
/// loaded from the system.
@Suite struct LicenceTests {
    static let root = Binary.repository

    /// The project's source files, relative to the root: code and scripts, not busted's own
    /// suite (Tests/busted, under its licence) and not generated files (types/authsh.lua).
    static func sources() -> [String] {
        var files: [String] = [".ci/run", "Package.swift", "Dockerfile"]
        for folder in ["Sources", "Tests", "Plugins", "Benchmarks", "Fuzz", "scripts", "plugins"] {
            let walker = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let name = walker?.nextObject() as? String {
                let path = folder + "/" + name
                guard !path.hasPrefix("Tests/busted/") else { continue }
                let code = ["swift", "c", "h", "modulemap", "lua", "py", "sh"].contains((name as NSString).pathExtension)
                let script = folder == "scripts" && !name.contains("/") && !name.contains(".")
                var isDirectory: ObjCBool = false
                if (code || script) && FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
                {
                    files.append(path)
                }
            }
        }
        return files.sorted()
    }

    @Test func everySourceFileNamesItsLicence() throws {
        let files = Self.sources()
        #expect(files.count > 500, "\(files.count) files found under \(Self.root)")
        for file in files {
            let head = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8).split(separator: "\n").prefix(2)
            let identifiers = head.compactMap { line in
                line.firstRange(of: "SPDX-License-Identifier: ").map { String(line[$0.upperBound...]) }
            }
            let forksLua = ["corolib.c", "luapattern.c", "sandboxlib.c"].map { "Sources/LuaShims/" + $0 }.contains(file)
            #expect(identifiers == [forksLua ? "Apache-2.0 AND MIT" : "Apache-2.0"], "\(file): \(head)")
        }
    }

    @Test func licenceAndNotice() throws {
        let licence = try String(contentsOfFile: Self.root + "/LICENSE", encoding: .utf8)
        #expect(licence.contains("Apache License") && licence.contains("Version 2.0, January 2004"))
        #expect(licence.contains("END OF TERMS AND CONDITIONS"))
        let notice = try String(contentsOfFile: Self.root + "/NOTICE", encoding: .utf8)
        for part in ["Apache License, Version 2.0", "libxcrypt", "GRDB.swift", "BoringSSL", "Lua.org"] {
            #expect(notice.contains(part), "NOTICE does not name \(part)")
        }
        let copyright = try String(contentsOfFile: Self.root + "/packaging/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
    }
}
