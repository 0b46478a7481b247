// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// `context.http`: a plugin's HTTP request to a host its app lists (``HTTPAllowList``), for the
/// webhook a trigger calls. An SSRF surface, so every request passes the same gate before any
/// connection is made:
///
/// - the URL is `http` or `https` with a host and port the app lists (the text compared: an
///   unlisted spelling of a listed address, `0x7f.1` or `[::ffff:127.0.0.1]`, is another host);
/// - a listed name is resolved once, and refused when any of its addresses is loopback,
///   link-local (the cloud metadata address), private, shared, unspecified, multicast or
///   reserved; the request then goes to the address that was checked (no second lookup a
///   rebinding name could answer differently), with the name for TLS and `Host`;
/// - a listed address literal is reached whatever it is (an operator who lists
///   `http://127.0.0.1:8080` means it);
/// - redirects are answered to the plugin, never followed; the answer's body is read up to
///   ``maxResponseBytes``; the request ends by the plugin call's own deadline.
enum OutboundHTTP {
    static let maxResponseBytes = 1 << 20
    static let maxRequestBytes = 1 << 20
    /// The longest a request may take, whatever the call's deadline.
    static let maxTimeout = Duration.seconds(30)

    /// A refusal or a failure, as the plugin's Lua error says it.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = "context.http: " + d }
    }

    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
    }

    /// The refusal of a URL the allow list does not hold.
    static func refusal(_ url: OutboundURL) -> Failure {
        let h = url.host.contains(":") ? "[\(url.host)]" : url.host
        return Failure("\(url.scheme)://\(h):\(url.port) is not in the app's httpAllowList")
    }

    /// Where `url` may be reached: nil for a listed address literal (connect to it), else the
    /// checked address of the listed name.
    static func gate(_ url: OutboundURL, allowList: HTTPAllowList) async throws -> String? {
        guard allowList.allows(url) else { throw refusal(url) }
        if IPAddressBytes(url.host) != nil { return nil }
        let addresses = try await resolve(url.host)
        guard let first = addresses.first else { throw Failure("\(url.host) does not resolve") }
        for address in addresses {
            if let kind = address.forbiddenKind {
                throw Failure(
                    "\(url.host) resolves to \(address.text), \(kind) address: refused (list that address itself to reach it)")
            }
        }
        return first.text
    }

    /// The addresses of `host`, from the system's resolver, on a thread of NIO's pool.
    static func resolve(_ host: String) async throws -> [IPAddressBytes] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(list) }
            var addresses: [IPAddressBytes] = []
            var node: UnsafeMutablePointer<addrinfo>? = first
            while let current = node {
                if let sa = current.pointee.ai_addr {
                    if current.pointee.ai_family == AF_INET {
                        let bytes = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                            withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) }
                        }
                        addresses.append(IPAddressBytes(raw: bytes))
                    } else if current.pointee.ai_family == AF_INET6 {
                        let bytes = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                            withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) }
                        }
                        addresses.append(IPAddressBytes(raw: bytes))
                    }
                }
                node = current.pointee.ai_next
            }
            return addresses
        }
    }

    /// Sends the request through the gate, within `timeout`.
    static func send(
        method: HTTPMethod, url: OutboundURL, headers: [(String, String)], body: [UInt8]?, allowList: HTTPAllowList,
        timeout: Duration
    ) async throws -> Answer {
        let address = try await gate(url, allowList: allowList)
        let limit = min(timeout, maxTimeout)
        let amount = TimeAmount.nanoseconds(Int64(limit.components.seconds) * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: amount, read: amount))
        if let address { configuration.dnsOverride = [url.host: address] }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let answer = try await execute(client, method: method, url: url, headers: headers, body: body, deadline: .now() + amount, limit: limit)
            try await client.shutdown()
            return answer
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static func execute(
        _ client: HTTPClient, method: HTTPMethod, url: OutboundURL, headers: [(String, String)], body: [UInt8]?,
        deadline: NIODeadline, limit: Duration
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url.text)
        request.method = method
        request.headers.add(name: "User-Agent", value: "authsh")
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(request, deadline: deadline)
            let bytes = try await response.body.collect(upTo: maxResponseBytes)
            return Answer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name.lowercased(), $0.value) },
                body: Array(buffer: bytes))
        } catch is NIOTooManyBytesError {
            throw Failure("\(url.host) answered more than \(maxResponseBytes / 1024) KiB")
        } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
            throw Failure("\(url.host) did not answer within \(limit)")
        } catch {
            throw Failure("\(url.host) could not be reached (\(error))")
        }
    }
}
