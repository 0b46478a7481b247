// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A received RFC 5322 message taken apart: unfolded headers and the decoded text of each
/// part of a multipart body (by content type).
struct ParsedMail {
    var headers: [(String, String)] = []
    var parts: [String: String] = [:]
    /// Every line as received is at most 998 characters and 7-bit.
    var linesAreShortAnd7Bit = true

    init(_ raw: String) {
        let text = raw.replacingOccurrences(of: "\r\n", with: "\n")
        linesAreShortAnd7Bit = text.split(separator: "\n", omittingEmptySubsequences: false)
            .allSatisfy { $0.utf8.count <= 998 && $0.utf8.allSatisfy { $0 < 0x80 } }
        let (head, body) = Self.split(text)
        headers = Self.headers(head)
        guard let type = header("Content-Type"), let range = type.range(of: "boundary=\"") else { return }
        let boundary = String(type[range.upperBound...].prefix { $0 != "\"" })
        for chunk in body.components(separatedBy: "--" + boundary).dropFirst() where !chunk.hasPrefix("--") {
            let (partHead, partBody) = Self.split(String(chunk.drop { $0 == "\n" }))
            let h = Self.headers(partHead)
            guard let contentType = h.first(where: { $0.0.lowercased() == "content-type" })?.1 else { continue }
            let kind = String(contentType.prefix { $0 != ";" })
            let encoded = partBody.replacingOccurrences(of: "\n", with: "")
            parts[kind] = Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? partBody
        }
    }

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// A header's value with RFC 2047 encoded words (`=?UTF-8?B?...?=`) decoded.
    func decoded(_ name: String) -> String? {
        guard let value = header(name) else { return nil }
        var out = ""
        for word in value.split(separator: " ", omittingEmptySubsequences: true) {
            if word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?=") {
                out += Data(base64Encoded: String(word.dropFirst(10).dropLast(2))).map { String(decoding: $0, as: UTF8.self) } ?? ""
            } else {
                out += (out.isEmpty ? "" : " ") + word
            }
        }
        return out
    }

    private static func split(_ text: String) -> (String, String) {
        guard let range = text.range(of: "\n\n") else { return (text, "") }
        return (String(text[..<range.lowerBound]), String(text[range.upperBound...]))
    }

    private static func headers(_ head: String) -> [(String, String)] {
        var result: [(String, String)] = []
        for line in head.split(separator: "\n") {
            if line.first == " " || line.first == "\t", !result.isEmpty {
                result[result.count - 1].1 += " " + line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                result.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        return result
    }
}
