// SPDX-License-Identifier: Apache-2.0
/// Why a body could not be read as JSON / EJSON: a message naming what was wrong and where.
public struct EJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, for instance `expected ':' after object key`.
    public let reason: String
    /// The byte offset in the input where it was noticed.
    public let offset: Int

    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
