// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird
import NIOCore

extension InputFields {
    /// Reads and parses a request's JSON body (at most the context's limit); an empty body is `{}`.
    static func read(_ request: Request, context: AuthRequestContext) async throws -> InputFields {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw ServiceError(.payloadTooLarge, "request body is larger than 1 MiB")
        }
        if buffer.readableBytes == 0 { return InputFields(document: [:]) }
        let value: EJSON
        do {
            value = try buffer.withUnsafeReadableBytes { raw throws(EJSONError) in try EJSON(parsing: raw) }
        } catch {
            throw ServiceError(.badRequest, "request body is not valid JSON: \(error.reason) (byte \(error.offset))")
        }
        guard case .document(let doc) = value else {
            throw ServiceError(.badRequest, "request body must be a JSON object, got \(value.typeName)")
        }
        return InputFields(document: doc)
    }
}

extension Request {
    /// The bearer token, or MissingAuthReq.
    func bearerToken() throws(ServiceError) -> String {
        guard let header = headers[.authorization], header.hasPrefix("Bearer ") else {
            throw ServiceError(.missingAuthReq, "must authenticate first")
        }
        return String(header.dropFirst(7))
    }
}
