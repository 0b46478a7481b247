// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The repository documents itself: every link in the README and `docs/` leads to a file of the
/// repository and, when it names one, to a heading that exists there; no document, source file
/// or test cites a Markdown file that is not in the repository.
@Suite(.timeLimit(.minutes(5))) struct DocumentationTests {
    static let root = Binary.repository

    /// The Markdown files of the documentation, relative to the root.
    static let documents: [String] = {
        var files = ["README.md"]
        let docs = URL(fileURLWithPath: root + "/docs")
        let walker = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "md" { files.append(String(url.path.dropFirst(root.count + 1))) }
        }
        return files.sorted()
    }()

    /// GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens, and a
    /// `-N` suffix for the Nth repeat.
    static func anchors(of file: String) throws -> Set<String> {
        let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced, line.hasPrefix("#"), let space = line.firstIndex(of: " "), line[..<space].allSatisfy({ $0 == "#" }) else { continue }
            let slug = String(
                line[space...].lowercased().trimmingCharacters(in: .whitespaces)
                    .filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }
                    .map { $0 == " " ? "-" : $0 })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The `[text](target)` links of a Markdown text, outside code.
    static func links(in text: String) -> [String] {
        var links: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle() }
            if fenced { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                links.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return links
    }

    @Test func everyLinkLeadsToAFileAndHeadingOfTheRepository() async throws {
        #expect(Self.documents.count > 10, "\(Self.documents)")
        for document in Self.documents {
            let text = try String(contentsOfFile: Self.root + "/" + document, encoding: .utf8)
            let directory = (document as NSString).deletingLastPathComponent
            for link in Self.links(in: text) where !link.hasPrefix("http://") && !link.hasPrefix("https://") && !link.hasPrefix("mailto:") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file =
                    parts[0].isEmpty
                    ? document
                    : ((directory as NSString).appendingPathComponent(String(parts[0])) as NSString).standardizingPath
                guard !file.hasPrefix("..") && !file.hasPrefix("/") else {
                    Issue.record("\(document): \(link) leads outside the repository")
                    continue
                }
                guard FileManager.default.fileExists(atPath: Self.root + "/" + file) else {
                    Issue.record("\(document): \(link): no file \(file)")
                    continue
                }
                if parts.count == 2, file.hasSuffix(".md") {
                    #expect(try Self.anchors(of: file).contains(String(parts[1])), "\(document): \(link): no such heading in \(file)")
                }
            }
        }
    }

    /// Sources, tests, scripts and documents cite only Markdown files that are in the
    /// repository, by their path from its root.
    @Test func nothingCitesADocumentOutsideTheRepository() async throws {
        var files = Self.documents
        for folder in ["Sources", "Tests", "scripts", "plugins"] {
            let walker = FileManager.default.enumerator(atPath: Self.root + "/" + folder)
            while let path = walker?.nextObject() as? String {
                if [".swift", ".lua", ".c", ".h", ".py", ".sh", ""].contains(where: { $0.isEmpty ? !path.contains(".") : path.hasSuffix($0) }) {
                    files.append(folder + "/" + path)
                }
            }
        }
        let cited = try NSRegularExpression(pattern: #"(?<![\w/.-])((?:\.\./|[\w-]+/)*[\w-]+\.md)\b"#)
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: Self.root + "/" + file, isDirectory: &isDirectory), !isDirectory.boolValue,
                let text = try? String(contentsOfFile: Self.root + "/" + file, encoding: .utf8)
            else { continue }
            let outside = "../" + "shared"  // spelled so that this file does not cite it
            #expect(!text.contains(outside), "\(file) cites \(outside)")
            let range = NSRange(text.startIndex..., in: text)
            for match in cited.matches(in: text, range: range) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                let fromRoot = FileManager.default.fileExists(atPath: Self.root + "/" + name)
                let fromHere =
                    file.hasSuffix(".md")
                    && FileManager.default.fileExists(
                        atPath: Self.root + "/" + ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name))
                #expect(fromRoot || fromHere, "\(file) cites \(name), which is not in the repository")
            }
        }
    }
}
