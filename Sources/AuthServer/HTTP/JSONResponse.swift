// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird
import NIOCore

/// Responses as the wire protocol wants them: JSON, `Content-Type: application/json` exactly.
enum JSONResponse {
    static func make(_ body: EJSON, status: HTTPResponse.Status = .ok, mode: EJSON.Mode = .canonical) -> Response {
        let bytes = body.encoded(mode)
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: buffer))
    }

    /// A success with nothing to say: `{}`.
    static var empty: Response { make([:]) }

    static func error(_ e: ServiceError) -> Response {
        var response = make(e.body, status: .init(code: e.status))
        if let seconds = e.retryAfter { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}
