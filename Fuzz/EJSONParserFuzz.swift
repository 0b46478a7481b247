// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the EJSON parser, built with AuthProtocol's sources by scripts/fuzz.
// Every input must parse or be refused with an EJSONError (never crash, never hang), and
// what parses must survive a canonical round trip.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? EJSON(parsing: bytes) else { return 0 }
    let text = value.encoded(.canonical)
    guard let again = try? EJSON(parsing: text) else {
        fatalError("canonical text of a parsed value does not parse: \(String(decoding: text, as: UTF8.self))")
    }
    // NaN is the one value not equal to itself; compare the texts instead.
    guard again == value || again.encoded(.canonical) == text else {
        fatalError("round trip changed the value: \(String(decoding: text, as: UTF8.self))")
    }
    _ = value.encoded(.relaxed)
    return 0
}
