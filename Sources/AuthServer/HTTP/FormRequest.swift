// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird
import NIOCore

/// Form-encoded requests: a query string, or a body (`application/x-www-form-urlencoded`) as
/// identity providers post them (the OAuth callback, the dev identity provider).
enum FormRequest {
    static func query(_ request: Request) -> [(String, String)] {
        request.uri.query.flatMap { FormEncoding.decode($0) } ?? []
    }

    /// A form body (`application/x-www-form-urlencoded`, at most 64 KiB); a JSON object body
    /// is taken too (GitHub accepts both), its string fields as form fields.
    static func form(_ request: Request, _ context: AuthRequestContext) async throws -> [(String, String)] {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: 65_536)
        } catch is NIOTooManyBytesError {
            throw ServiceError(.payloadTooLarge, "request body is larger than 64 KiB")
        }
        let bytes = Array(buffer.readableBytesView)
        if bytes.first == UInt8(ascii: "{") {
            guard case .document(let d)? = try? EJSON(parsing: bytes) else {
                throw ServiceError(.badRequest, "request body is not valid JSON")
            }
            return d.compactMap { k, v in v.stringValue.map { (k, $0) } }
        }
        guard let fields = FormEncoding.decode(bytes: bytes) else { throw ServiceError(.badRequest, "request body is not a valid form") }
        return fields
    }
}
