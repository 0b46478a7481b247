// SPDX-License-Identifier: Apache-2.0
/// The web origins whose pages may call an app's client API from a browser: config key
/// `allowedRequestOrigins` (App Services' "Allowed Request Origins"), a list of origins
/// (`"https://app.example.com"`, `"http://localhost:5173"`) or `"*"` for any.
///
/// An origin is a scheme, a host and a port, as a browser sends it in `Origin`: lowercase,
/// without the scheme's default port, and nothing after it (no path, not even `/`). Entries are
/// written that way when read (`HTTPS://App.Example.com:443` is `https://app.example.com`), and
/// a request's `Origin` must then match one exactly. `"null"` (the origin of sandboxed frames
/// and `file:` pages, which any page can give itself) is refused.
public struct RequestOrigins: Sendable, Equatable {
    /// Any origin (`"*"`).
    public var any: Bool
    /// The origins listed, in their browser form.
    public var origins: [String]

    /// No other origin (the default of `authsh serve` without `--dev`).
    public static let none = RequestOrigins(any: false, origins: [])
    /// Any origin (the default in dev mode).
    public static let all = RequestOrigins(any: true, origins: [])

    public init(any: Bool, origins: [String]) {
        self.any = any
        self.origins = origins
    }

    /// Reads a config list; `path` names it in errors.
    init(_ entries: [String], path: String) throws(ConfigError) {
        any = false
        origins = []
        for (i, entry) in entries.enumerated() {
            if entry == "*" {
                any = true
                continue
            }
            do throws(Refusal) {
                let origin = try Self.canonical(entry)
                if !origins.contains(origin) { origins.append(origin) }
            } catch {
                throw ConfigError(key: "\(path)[\(i)]", reason: "\"\(entry)\" is not an origin: \(error.reason)")
            }
        }
    }

    /// Whether a page of `origin` (a request's `Origin` header) may call the API.
    public func allows(_ origin: String) -> Bool {
        origin != "null" && (any || origins.contains(origin))
    }

    /// The list as the config file writes it.
    var entries: [String] { (any ? ["*"] : []) + origins }

    struct Refusal: Error {
        let reason: String
    }

    /// `entry` as a browser serializes an origin.
    static func canonical(_ entry: String) throws(Refusal) -> String {
        guard entry != "null" else { throw Refusal(reason: "\"null\" is the origin of sandboxed and file pages, which any page can claim") }
        guard let separator = entry.range(of: "://") else { throw Refusal(reason: "write it as scheme://host[:port]") }
        let scheme = entry[..<separator.lowerBound].lowercased()
        var rest = entry[separator.upperBound...]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { throw Refusal(reason: "the scheme \"\(scheme)\" is not one") }
        guard !rest.contains(where: { "/?#@\\".contains($0) }) else {
            throw Refusal(reason: "an origin has no path, query, fragment or user (write it as scheme://host[:port])")
        }
        var port: Substring?
        if rest.hasPrefix("[") {
            // An IPv6 literal: [::1]:8080.
            guard let close = rest.firstIndex(of: "]") else { throw Refusal(reason: "an IPv6 address needs its closing ]") }
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Refusal(reason: "unexpected text after the host") }
                port = after.dropFirst()
            }
            rest = rest[...close]
        } else if let colon = rest.lastIndex(of: ":") {
            port = rest[rest.index(after: colon)...]
            rest = rest[..<colon]
        }
        let host = rest.lowercased()
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "%" }) else {
            throw Refusal(reason: "the host must be ASCII (a name in punycode, xn--...)")
        }
        guard let port else { return "\(scheme)://\(host)" }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), number <= 65535 else {
            throw Refusal(reason: "the port must be a number from 0 to 65535")
        }
        let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
        return isDefault ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(number)"
    }
}
