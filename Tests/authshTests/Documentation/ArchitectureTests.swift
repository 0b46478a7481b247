// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The server module's folders depend one way, in the layers `docs/architecture.md` gives: a
/// folder uses the types of the folders below it, never of its own layer's others or of those
/// above. (AuthStorage, a target of its own, is held by the compiler; within AuthServer nothing
/// but this test holds the folders.) A type is the folder's that declares it; a use is its name
/// in code (comments left out), which is what a reader follows.
@Suite struct ArchitectureTests {
    /// Bottom first; a folder may use the folders of lower layers. `.` is the composition root.
    static let layers: [[String]] = [
        ["Common"],
        ["Configuration", "Queue", "Operations"],
        ["Security", "OAuth", "WebAuthn", "TLS", "Mail"],
        ["Plugins"],
        ["Service"],
        ["HTTP"],
        ["Admin", "DevIdP"],
        ["Routes"],
        ["."],
    ]

    static let root = Binary.repository + "/Sources/AuthServer"

    /// Every Swift file of the module, by folder (the first path component, `.` at the top).
    static func files() -> [(folder: String, path: String)] {
        var found: [(String, String)] = []
        let walker = FileManager.default.enumerator(atPath: root)
        while let name = walker?.nextObject() as? String {
            guard name.hasSuffix(".swift") else { continue }
            let parts = name.split(separator: "/")
            found.append((parts.count > 1 ? String(parts[0]) : ".", root + "/" + name))
        }
        return found
    }

    /// The code of a file without its comments (line comments; doc comments name types freely).
    static func code(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
    }

    @Test func everyFolderIsInALayer() throws {
        let named = Set(Self.layers.joined())
        let folders = Set(Self.files().map(\.folder))
        #expect(folders.count >= 15, "\(folders) under \(Self.root)")
        #expect(folders.subtracting(named).isEmpty, "folders in no layer: \(folders.subtracting(named).sorted())")
    }

    @Test func foldersUseOnlyTheLayersBelowThem() throws {
        let files = Self.files()
        let declaration = try NSRegularExpression(
            pattern: #"^(?:(?:public|package|private|fileprivate|final|indirect) )*(?:struct|enum|class|protocol|actor|typealias) ([A-Z]\w*)"#,
            options: .anchorsMatchLines)
        let word = try NSRegularExpression(pattern: #"\b[A-Z]\w*\b"#)
        var home: [String: String] = [:]
        var texts: [(String, String, String)] = []
        for (folder, path) in files {
            let text = try Self.code(path)
            texts.append((folder, path, text))
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                if home[name] == nil { home[name] = folder }
            }
        }
        let layer = Dictionary(uniqueKeysWithValues: Self.layers.enumerated().flatMap { i, names in names.map { ($0, i) } })
        #expect(home.count > 150, "\(home.count) types found")
        var wrong: [String] = []
        for (folder, path, text) in texts {
            let names = Set(word.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
            for name in names.sorted() {
                guard let owner = home[name], owner != folder, let from = layer[folder], let to = layer[owner] else { continue }
                if to >= from { wrong.append("\(path.dropFirst(Self.root.count + 1)) (\(folder)) uses \(name) of \(owner)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
    }
}
