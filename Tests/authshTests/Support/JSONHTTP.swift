// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

/// JSON over HTTP to a real `authsh serve` process: a status and a parsed body.
struct JSONHTTP {
    struct Reply {
        var status: Int
        var text: String
        /// The body as a JSON value (nil when it is not JSON).
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) }
        /// The body as an integer, plain or canonical EJSON (`{"$numberInt": "1"}`).
        var integer: Int? {
            if let n = json as? Int { return n }
            guard let wrapped = json as? [String: String] else { return nil }
            return (wrapped["$numberInt"] ?? wrapped["$numberLong"]).flatMap { Int($0) }
        }
        /// A string field of an object body.
        subscript(field: String) -> String? { (json as? [String: Any])?[field] as? String }
    }

    let origin: String
    /// How long an answer may take (a test under load may want longer: it asserts what the
    /// answer is, not how soon it came).
    var timeout: TimeAmount = .seconds(20)
    /// The client that sends (a probe beside a load sends on its own, so that requests the
    /// load left waiting do not hold every connection of its pool).
    var client: HTTPClient = JSONHTTP.client

    /// `{origin}/api/client/v2.0/app/{app}`.
    func app(_ app: String = "local") -> String { "/api/client/v2.0/app/\(app)" }

    func send(_ method: HTTPMethod, _ path: String, json: String? = nil, token: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: origin + path)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(Array(json.utf8))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await client.execute(request, timeout: timeout)
        return Reply(status: Int(response.status.code), text: String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// The binary's tests' own client, on event loops of its own: the in-process servers of the
    /// other targets, in the same process, use the shared ones.
    static let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup(numberOfThreads: 2))

    /// A JSON string literal of `value`.
    static func quoted(_ value: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    func emailLogin(_ email: String, _ password: String) async throws -> Reply {
        try await send(
            .POST, app() + "/auth/providers/local-userpass/login",
            json: #"{"username":\#(Self.quoted(email)),"password":\#(Self.quoted(password))}"#)
    }

    /// The newest mail of `kind` to `email` in this (dev mode) server's outbox: its token and id.
    func mail(_ email: String, kind: String) async throws -> (token: String, tokenId: String) {
        let reply = try await send(.GET, "/api/dev/v1/apps/local/outbox?email=\(email)&kind=\(kind)")
        let last = try #require((reply.json as? [[String: Any]])?.last, "no \(kind) mail to \(email): \(reply.text)")
        return (try #require(last["token"] as? String), try #require(last["tokenId"] as? String))
    }

    /// `POST functions/call` of `name` with no arguments.
    func call(_ name: String, token: String) async throws -> Reply {
        try await send(.POST, app() + "/functions/call", json: #"{"name":\#(Self.quoted(name)),"arguments":[]}"#, token: token)
    }
}
