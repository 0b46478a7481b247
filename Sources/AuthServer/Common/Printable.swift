// SPDX-License-Identifier: Apache-2.0
/// At most `limit` characters of text that came from outside (a header, a token's field, an
/// IdP's error code), with anything but printable ASCII shown as `?`: safe to put in an error
/// message or a log line.
public func printable(_ text: String, limit: Int = 100) -> String {
    String(text.unicodeScalars.prefix(limit).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
}
