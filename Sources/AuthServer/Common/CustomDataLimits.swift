// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The limits of a user's custom data, wherever it comes in: a plugin's
/// `context.users.setCustomData`, the admin API's `PUT users/{id}/custom_data`, and import.
/// Custom data rides in every access token of its user as `user_data`: tokens must stay well
/// inside the 80 KiB header limit, and their verifier parses 32 levels. Past these limits the
/// user could get no usable token again.
enum CustomDataLimits {
    /// Bytes as canonical EJSON.
    static let bytes = 16 << 10
    /// Levels of nesting.
    static let depth = 20

    /// Why `document` cannot be custom data (naming the limit), or nil when it can.
    static func problem(_ document: EJSONDocument) -> String? {
        let value = EJSON.document(document)
        let size = value.encoded(.canonical).count
        if size > bytes { return "custom data is \(size) bytes as EJSON, over the limit of \(bytes)" }
        let levels = value.depth
        if levels > depth { return "custom data nests \(levels) levels, over the limit of \(depth)" }
        return nil
    }
}
