// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the CBOR decoder (what browsers send in passkey ceremonies), built
// with AuthProtocol's CBOR sources by `scripts/fuzz cbor`. Every input must decode or be
// refused with a CBORError (never crash, never hang), and what decodes must survive the
// encoder: encoding the item, decoding that and encoding again gives the same bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let (_, end) = try? CBORDecoder.decodePrefix(bytes[...]) {
        precondition(end > 0 && end <= bytes.count, "a prefix ends outside the input")
    }
    guard let item = try? CBORDecoder.decode(bytes) else { return 0 }
    let encoded = CBOREncoder.encode(item)
    guard let again = try? CBORDecoder.decode(encoded) else {
        fatalError("the encoding of a decoded item does not decode: \(encoded)")
    }
    guard CBOREncoder.encode(again) == encoded else { fatalError("a round trip changed the item: \(encoded)") }
    return 0
}
