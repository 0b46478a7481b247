// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

extension AppConfiguration {
    /// The `phone` provider: sign-in by a code texted to a phone number (Firebase's phone
    /// auth; the App Services API has none).
    ///
    /// ```json
    /// "phone": { "testNumbers": { "+15555550100": "123456" } }
    /// ```
    ///
    /// A text goes out through the app's `sendSms` hook (in dev mode, to the outbox too); a
    /// test number gets no text, and its code is the one listed, as Firebase's fictional
    /// numbers for testing.
    public struct Phone: Sendable, Equatable {
        /// Fixed codes of numbers that get no text, by E.164 number.
        public var testNumbers: [String: String] = [:]

        public init() {}

        /// Whether `number` is an E.164 number: `+`, then 7 to 15 digits, the first not 0.
        static func isValid(_ number: String) -> Bool {
            let bytes = Array(number.utf8)
            return (8...16).contains(bytes.count) && bytes[0] == UInt8(ascii: "+") && bytes[1] != UInt8(ascii: "0")
                && bytes.dropFirst().allSatisfy { (48...57).contains($0) }
        }

        init(reader p: inout ConfigReader) throws(ConfigError) {
            self.init()
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
                "enabled": true,
                "testNumbers": .document(EJSONDocument(testNumbers.sorted { $0.key < $1.key }.map { ($0.key, EJSON.string($0.value)) })),
            ]
        }
    }
}
