// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Foundation
import Mustache

/// The mails the server writes, from Mustache templates: a subject, a text part and an HTML
/// part per kind (`confirm`, `reset`, `signin`, `changeemail`, `recoveremail`, `notice`, `plugin`), the defaults of
/// ``DefaultMailTemplates`` unless files override them.
///
/// With config `mailTemplates: DIR`, a file `DIR/APP/KIND.PART.mustache` (PART: `subject`,
/// `text` or `html`) is used for that app, else `DIR/KIND.PART.mustache` for every app, else
/// the default. Subject and text templates are plain text (a value is inserted as it is);
/// HTML templates escape what they insert. Values: `app`, `email`, `link`, `token`,
/// `tokenId`, `minutes` (how long the link lives), `subject` (the app's configured subject),
/// `body` (a plugin's text).
struct MailTemplates: Sendable {
    enum Part: String, CaseIterable, Sendable { case subject, text, html }

    /// The built-in templates.
    static let defaults: MailTemplates = try! MailTemplates()

    /// Templates by `APP/KIND.PART` and `KIND.PART`.
    private let templates: [String: MustacheTemplate]

    /// The defaults, overridden by the files of `directory`.
    /// - Throws: a configuration error naming a file that does not parse.
    init(directory: String? = nil) throws(ConfigError) {
        var templates: [String: MustacheTemplate] = [:]
        for (name, source) in DefaultMailTemplates.sources {
            templates[name] = try Self.parse(source, name: name, where: "the default templates")
        }
        if let directory {
            for (name, path) in try Self.files(in: directory) {
                let bytes: [UInt8]
                do { bytes = try RegularFile.read(path, limit: 1 << 20) } catch { throw ConfigError(key: "mailTemplates", reason: error.description) }
                guard let source = String(validating: bytes, as: UTF8.self) else {
                    throw ConfigError(key: "mailTemplates", reason: "\(path) is not UTF-8 text")
                }
                templates[name] = try Self.parse(source, name: name, where: path)
            }
        }
        self.templates = templates
    }

    /// A mail of `kind` for `app`: subject (one line), text and HTML.
    func render(_ kind: String, app: String, values: [String: String]) -> (subject: String, text: String, html: String) {
        func part(_ part: Part) -> String {
            let template = templates["\(app)/\(kind).\(part)"] ?? templates["\(kind).\(part)"] ?? templates["plugin.\(part)"]!
            return template.render(values)
        }
        let subject = part(.subject).split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return (subject, part(.text), part(.html))
    }

    private static func parse(_ source: String, name: String, where place: String) throws(ConfigError) -> MustacheTemplate {
        // Subjects and text parts insert values as they are; HTML escapes them.
        let typed = name.hasSuffix(".html") ? source : "{{% CONTENT_TYPE: TEXT}}" + source
        do {
            return try MustacheTemplate(string: typed)
        } catch {
            throw ConfigError(key: "mailTemplates", reason: "\(place): template \(name) does not parse: \(error)")
        }
    }

    /// `KIND.PART.mustache` files of `directory` and of its app folders, by template name.
    private static func files(in directory: String) throws(ConfigError) -> [(String, String)] {
        let manager = FileManager.default
        guard let top = try? manager.contentsOfDirectory(atPath: directory) else {
            throw ConfigError(key: "mailTemplates", reason: "\(directory) is not a directory that can be read")
        }
        var found: [(String, String)] = []
        func add(_ file: String, in folder: String, prefix: String) {
            let parts = file.split(separator: ".")
            guard parts.count == 3, parts[2] == "mustache", Part(rawValue: String(parts[1])) != nil else { return }
            found.append((prefix + parts[0] + "." + parts[1], folder + "/" + file))
        }
        for entry in top.sorted() {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + entry
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                for file in ((try? manager.contentsOfDirectory(atPath: path)) ?? []).sorted() { add(file, in: path, prefix: entry + "/") }
            } else {
                add(entry, in: directory, prefix: "")
            }
        }
        return found
    }
}
