// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird
import Logging
import NIOHTTP1

/// Turns every error into the wire protocol's error body, and logs each request
/// (method, path without query, status, time: never a body or a header).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let logger: Logger
    let clock = ContinuousClock()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = clock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch let e as ServiceError {
            response = JSONResponse.error(e)
        } catch let e as HTTPError {
            response = JSONResponse.error(Self.translate(e))
        } catch let e as StoreError where !e.isConflict {
            // The database is away (PostgreSQL restarting, a disk that failed): say so, and when
            // to try again, rather than a 500. The operation is logged, never a bound value.
            logger.warning("database unavailable", metadata: ["path": "\(request.uri.path)", "operation": "\(e.operation)"])
            response = JSONResponse.error(
                ServiceError(
                    .serviceUnavailable, "the database is unavailable: try again shortly",
                    retryAfter: Self.retryAfterUnavailable))
        } catch let e as HTTPParserError {
            // A malformed request (a bad chunk size, say): the client's mistake.
            response = JSONResponse.error(ServiceError(.badRequest, "malformed HTTP request: \(e)"))
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: type(of: error)))"])
            response = JSONResponse.error(ServiceError(.internalServerError, "internal server error"))
        }
        if logger.logLevel <= .info {
            let ms = (clock.now - start).components
            let elapsed = Double(ms.seconds) * 1000 + Double(ms.attoseconds) / 1e15
            logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(Int(elapsed * 1000)) us")
        }
        return response
    }

    /// Seconds a client is told to wait when the database is unavailable.
    static let retryAfterUnavailable = 2

    static func translate(_ e: HTTPError) -> ServiceError {
        switch e.status {
        case .notFound: return ServiceError(.notFound, "no such route")
        case .contentTooLarge: return ServiceError(.payloadTooLarge, "request body is larger than 1 MiB")
        case .methodNotAllowed: return ServiceError(.methodNotAllowed, "method not allowed")
        default: return ServiceError(.badRequest, e.body ?? "bad request", status: Int(e.status.code))
        }
    }
}
