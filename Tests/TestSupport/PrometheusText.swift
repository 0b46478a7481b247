// SPDX-License-Identifier: Apache-2.0
/// A scrape of `/metrics` parsed from Prometheus' text format (version 0.0.4): the samples,
/// and each family's `# TYPE`. Strict enough to catch a malformed exposition: every line is a
/// comment or `name{label="value",...} number`.
public struct PrometheusText {
    public struct Sample {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public var samples: [Sample] = []
    public var types: [String: String] = [:]

    public struct Malformed: Error, CustomStringConvertible {
        public var line: String
        public var description: String { "not a Prometheus text line: \(line)" }
    }

    public init(_ text: String) throws {
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4 else { throw Malformed(line: line) }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            samples.append(try Self.sample(line))
        }
    }

    private static func sample(_ line: String) throws -> Sample {
        var name = "", labels: [String: String] = [:]
        var rest = Substring(line)
        if let brace = rest.firstIndex(of: "{") {
            name = String(rest[..<brace])
            rest = rest[rest.index(after: brace)...]
            while !rest.hasPrefix("}") {
                guard let eq = rest.firstIndex(of: "="), rest[rest.index(after: eq)...].hasPrefix("\"") else { throw Malformed(line: line) }
                let key = String(rest[..<eq])
                rest = rest[rest.index(eq, offsetBy: 2)...]
                var value = ""
                while let c = rest.first, c != "\"" {
                    if c == "\\" {
                        rest = rest.dropFirst()
                        guard let escaped = rest.first else { throw Malformed(line: line) }
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(c)
                    }
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"" else { throw Malformed(line: line) }
                rest = rest.dropFirst()
                labels[key] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        } else {
            guard let space = rest.firstIndex(of: " ") else { throw Malformed(line: line) }
            name = String(rest[..<space])
            rest = rest[space...]
        }
        guard let value = Double(rest.trimmingPrefix(" ")), !name.isEmpty,
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
        else { throw Malformed(line: line) }
        return Sample(name: name, labels: labels, value: value)
    }

    /// The sum of the samples named `name` whose labels include `labels` (0 when none).
    public func sum(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }.reduce(0) { $0 + $1.value }
    }

    /// Whether any sample is named `name` with these labels.
    public func has(_ name: String, _ labels: [String: String] = [:]) -> Bool {
        samples.contains { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
    }
}
