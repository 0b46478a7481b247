// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

extension AppConfiguration {
    /// The `phone` provider: sign-in by a code texted to a phone number (Firebase's phone
    /// auth; the App Services API has none).
    ///
    /// ```json
    /// "phone": { "testNumbers": { "+15555550100": "123456" }, "allowedRegions": ["+1", "+44"] }
    /// ```
    ///
    /// A text goes out through the app's `sendSms` hook (in dev mode, to the outbox too); a
    /// test number gets no text, and its code is the one listed, as Firebase's fictional
    /// numbers for testing.
    public struct Phone: Sendable, Equatable {
        /// Fixed codes of numbers that get no text, by E.164 number.
        public var testNumbers: [String: String] = [:]
        /// The prefixes (`+` and 1 to 6 digits: a calling code, or more of a number) of the
        /// numbers the app texts; empty: any. Texts to premium numbers abroad are what an SMS
        /// pumping attack sells.
        public var allowedRegions: [String] = []

        /// Whether a text may go to `number`.
        func allows(_ number: String) -> Bool { allowedRegions.isEmpty || allowedRegions.contains { number.hasPrefix($0) } }

        public init() {}

        /// Whether `number` is an E.164 number: `+`, then 7 to 15 digits, the first not 0.
        static func isValid(_ number: String) -> Bool {
            let bytes = Array(number.utf8)
            return (8...16).contains(bytes.count) && bytes[0] == UInt8(ascii: "+") && bytes[1] != UInt8(ascii: "0")
                && bytes.dropFirst().allSatisfy { (48...57).contains($0) }
        }

        init(reader p: inout ConfigReader) throws(ConfigError) {
            self.init()
            if let v = p.value("allowedRegions"), v != .null {
                guard case .array(let items) = v, items.count <= 300 else {
                    throw p.mismatch("allowedRegions", "an array of at most 300 prefixes", v)
                }
                for item in items {
                    guard let prefix = item.stringValue, prefix.hasPrefix("+"), (2...7).contains(prefix.utf8.count),
                        prefix.utf8.dropFirst().allSatisfy({ (48...57).contains($0) })
                    else {
                        throw ConfigError(key: p.keyPath("allowedRegions"), reason: "a prefix is + and 1 to 6 digits, as \"+1\" or \"+44\"")
                    }
                    allowedRegions.append(prefix)
                }
            }
            guard let v = p.value("testNumbers"), v != .null else { return }
            guard case .document(let numbers) = v else { throw p.mismatch("testNumbers", "an object of numbers and codes", v) }
            guard numbers.count <= 100 else { throw ConfigError(key: p.keyPath("testNumbers"), reason: "lists at most 100 numbers") }
            for (number, code) in numbers {
                guard Self.isValid(number) else {
                    throw ConfigError(
                        key: p.keyPath("testNumbers"), reason: "'\(printable(number, limit: 40))' is not an E.164 number (+ and 7 to 15 digits)")
                }
                guard let code = code.stringValue, code.utf8.count == 6, code.utf8.allSatisfy({ (48...57).contains($0) }) else {
                    throw ConfigError(key: p.keyPath("testNumbers"), reason: "the code of \(number) must be a string of 6 digits")
                }
                testNumbers[number] = code
            }
        }

        var ejson: EJSON {
            [
                "enabled": true, "allowedRegions": .array(allowedRegions.map(EJSON.string)),
                "testNumbers": .document(EJSONDocument(testNumbers.sorted { $0.key < $1.key }.map { ($0.key, EJSON.string($0.value)) })),
            ]
        }
    }
}
