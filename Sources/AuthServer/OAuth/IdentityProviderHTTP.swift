// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
import NIOCore
import NIOHTTP1

/// Requests from the server to an identity provider, bounded in time and size.
///
/// The IdP being unreachable, too slow, answering 5xx or answering what is not JSON is 502
/// `IdentityProviderUnavailable`; a 4xx is handed back for the caller to explain. Nothing of
/// a request or answer body (codes, tokens, claims) goes into a message or a log.
struct IdentityProviderHTTP: Sendable {
    /// The provider key, for messages.
    let provider: String
    let timeout: TimeAmount

    /// An answer: its status and its JSON body (`null` for an empty body).
    struct Reply {
        var status: Int
        var body: EJSON
        var ok: Bool { (200..<300).contains(status) }
    }

    /// The largest answer read (JWKS and discovery documents are a few KiB).
    static let maxBody = 1 << 20

    func get(_ url: String, bearer: String? = nil) async throws(ServiceError) -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await send(request, url: url)
    }

    /// A form post (`application/x-www-form-urlencoded`), optionally with HTTP Basic auth.
    func postForm(_ url: String, _ fields: [(String, String)], basic: (String, String)? = nil) async throws(ServiceError) -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let (user, password) = basic {
            let pair = FormEncoding.escape(user) + ":" + FormEncoding.escape(password)
            request.headers.add(name: "Authorization", value: "Basic " + Base64.encode(Array(pair.utf8)))
        }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await send(request, url: url)
    }

    /// A JSON post with HTTP Basic auth (GitHub's token check).
    func postJSON(_ url: String, _ body: EJSON, basic: (String, String)) async throws(ServiceError) -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Authorization", value: "Basic " + Base64.encode(Array("\(basic.0):\(basic.1)".utf8)))
        request.body = .bytes(ByteBuffer(bytes: body.encoded(.relaxed)))
        return try await send(request, url: url)
    }

    private func send(_ request: HTTPClientRequest, url: String) async throws(ServiceError) -> Reply {
        var request = request
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "authsh")
        let host = Self.hostOf(url)
        let bytes: ByteBuffer
        let status: Int
        do {
            let deadline = NIODeadline.now() + timeout
            let response = try await HTTPClient.shared.execute(request, deadline: deadline)
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: Self.maxBody)
        } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
            throw unavailable("\(host) did not answer within \(timeout.nanoseconds / 1_000_000_000) s")
        } catch is NIOTooManyBytesError {
            throw unavailable("\(host) answered more than 1 MiB")
        } catch {
            throw unavailable("\(host) could not be reached")
        }
        if status >= 500 { throw unavailable("\(host) answered \(status)") }
        if bytes.readableBytes == 0 { return Reply(status: status, body: .null) }
        guard let body = try? bytes.withUnsafeReadableBytes({ raw throws(EJSONError) in try EJSON(parsing: raw) }) else {
            throw unavailable("\(host) answered \(status) with a body that is not JSON")
        }
        return Reply(status: status, body: body)
    }

    func unavailable(_ why: String) -> ServiceError {
        ServiceError(.identityProviderUnavailable, "identity provider of \(provider) unavailable: \(why)")
    }

    /// `scheme://host[:port]` of a URL, for messages (never its path or query).
    static func hostOf(_ url: String) -> String {
        guard let r = RedirectURI(url.split(separator: "?").first.map(String.init) ?? url) else { return "the identity provider" }
        return r.scheme + "://" + r.host + (r.port.map { ":\($0)" } ?? "")
    }
}
