// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird
import NIOCore

/// A request's JSON body, with readers whose errors name the field.
struct RequestBody {
    let document: EJSONDocument

    /// Reads and parses the body (at most the context's limit); an empty body is `{}`.
    static func read(_ request: Request, context: AuthRequestContext) async throws -> RequestBody {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw ServiceError(.payloadTooLarge, "request body is larger than 1 MiB")
        }
        if buffer.readableBytes == 0 { return RequestBody(document: [:]) }
        let value: EJSON
        do {
            value = try buffer.withUnsafeReadableBytes { raw throws(EJSONError) in try EJSON(parsing: raw) }
        } catch {
            throw ServiceError(.badRequest, "request body is not valid JSON: \(error.reason) (byte \(error.offset))")
        }
        guard case .document(let doc) = value else {
            throw ServiceError(.badRequest, "request body must be a JSON object, got \(value.typeName)")
        }
        return RequestBody(document: doc)
    }

    /// A required string field.
    func string(_ key: String) throws(ServiceError) -> String {
        guard let v = document[key], v != .null else { throw ServiceError(.missingParameter, "missing parameter '\(key)'") }
        guard case .string(let s) = v else {
            throw ServiceError(.invalidParameter, "parameter '\(key)' must be a string, got \(v.typeName)")
        }
        return s
    }

    /// An optional string field.
    func optionalString(_ key: String) throws(ServiceError) -> String? {
        guard let v = document[key], v != .null else { return nil }
        guard case .string(let s) = v else {
            throw ServiceError(.invalidParameter, "parameter '\(key)' must be a string, got \(v.typeName)")
        }
        return s
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
