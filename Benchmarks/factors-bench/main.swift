// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// `scripts/bench factors`: logins with a second factor or a passkey against anonymous login
/// and a plain custom-JWT login, on one server (`authsh serve --dev` with scripts/bench-factors'
/// config), from CONCURRENCY tasks for SECONDS each, in this one run.
/// Usage: factors-bench ORIGIN JWT-KEY [SECONDS] [CONCURRENCY]
///
/// - anonymous login: one request, the baseline;
/// - custom-JWT login of a returning user without a factor: one request;
/// - TOTP login: the same JWT login answering `MFARequired`, then the code: two requests. A
///   code is accepted once per user and 30-second step, so the users (2,000) take turns and the
///   dev clock moves 30 s whenever every user has used the current steps;
/// - passkey login: the options, the software authenticator's ES256 signature, the login: two
///   requests.
let arguments = CommandLine.arguments
guard arguments.count >= 3, arguments[1].hasPrefix("http") else {
    FileHandle.standardError.write(Data("usage: factors-bench ORIGIN JWT-KEY [SECONDS] [CONCURRENCY]\n".utf8))
    exit(64)
}
let origin = arguments[1], jwtKey = SymmetricKey(data: Array(arguments[2].utf8))
let seconds = Int(arguments.dropFirst(3).first ?? "") ?? 10
let concurrency = Int(arguments.dropFirst(4).first ?? "") ?? 16
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(connectionPool: .init(idleTimeout: .seconds(60))))
let app = origin + "/api/client/v2.0/app/local"

struct Failure: Error, CustomStringConvertible { let description: String }

@Sendable func call(_ method: HTTPMethod, _ url: String, _ body: EJSON? = nil, token: String? = nil) async throws -> (Int, EJSON) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    request.headers.add(name: "Content-Type", value: "application/json")
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    if let body { request.body = .bytes(ByteBuffer(bytes: body.encoded(.relaxed))) }
    let response = try await client.execute(request, timeout: .seconds(30))
    let bytes = Array(buffer: try await response.body.collect(upTo: 1 << 20))
    return (Int(response.status.code), bytes.isEmpty ? [:] : try EJSON(parsing: bytes))
}

@Sendable func expect(_ status: Int, _ reply: (Int, EJSON), _ what: String) throws -> EJSON {
    guard reply.0 == status else { throw Failure(description: "\(what): \(reply.0) \(reply.1)") }
    return reply.1
}

/// An HS256 custom token for `sub`, valid for ten days of any clock.
@Sendable func jwt(_ sub: String) -> String {
    let now = Int64(Date().timeIntervalSince1970)
    let header = Base64.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), urlSafe: true)
    let claims = EJSON.document(["sub": .string(sub), "aud": "authsh-bench", "iat": .int64(now - 60), "exp": .int64(now + 864_000)])
    let payload = Base64.encode(claims.encoded(.relaxed), urlSafe: true)
    let mac = HMAC<SHA256>.authenticationCode(for: Array("\(header).\(payload)".utf8), using: jwtKey)
    return "\(header).\(payload).\(Base64.encode(Array(mac), urlSafe: true))"
}

@Sendable func jwtLogin(_ sub: String) async throws -> (Int, EJSON) {
    try await call(.POST, app + "/auth/providers/custom-token/login", ["provider": "custom-token", "token": .string(jwt(sub))])
}

/// The server's clock (the dev API), moved `seconds` forward first.
@Sendable func serverNow(advancing seconds: Int64 = 0) async throws -> Int64 {
    try expect(200, try await call(.POST, origin + "/api/dev/v1/clock", ["advanceSeconds": .int64(seconds)]), "clock")["now"]!.integerValue!
}

/// Runs `body` from `concurrency` tasks for `seconds`; completed runs per second.
func rate(_ name: String, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
    for i in 0..<concurrency * 4 { try await body(i) }  // warm-up: connections, caches
    let start = ContinuousClock.now
    let deadline = start + .seconds(seconds)
    let counts = try await withThrowingTaskGroup(of: Int.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var n = 0
                while ContinuousClock.now < deadline {
                    try await body(worker * 1_000_000 + n)
                    n += 1
                }
                return n
            }
        }
        return try await group.reduce(0, +)
    }
    let elapsed = ContinuousClock.now - start
    let perSecond = Double(counts) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    print("\(name): \(String(format: "%.0f", perSecond)) logins/s (\(counts) in \(seconds) s, \(concurrency) at once)")
    return perSecond
}

// Set-up: 2,000 users with TOTP (custom-JWT users enrol and confirm), one without, one passkey.
let users = 2000
var secrets: [TOTP] = []
print("set-up: \(users) users with TOTP, \(concurrency) with a passkey")
for i in 0..<users {
    let login = try expect(200, try await jwtLogin("totp-\(i)"), "first login")
    let token = login["access_token"]!.stringValue!
    let enrolment = try expect(201, try await call(.POST, origin + "/api/client/v2.0/auth/mfa/totp", token: token), "enrol")
    let totp = TOTP(base32: enrolment["secret"]!.stringValue!)!
    _ = try expect(
        200,
        try await call(
            .POST, origin + "/api/client/v2.0/auth/mfa/totp/confirm", ["code": .string(totp.code(at: try await serverNow()))], token: token),
        "confirm")
    secrets.append(totp)
}
_ = try expect(200, try await jwtLogin("plain"), "plain user")
// One passkey per task: an authenticator signs one assertion at a time, and the server refuses
// a counter that arrives lower than one it has seen (a clone).
var devices: [SoftwareAuthenticator] = []
for _ in 0..<concurrency {
    let authenticator = SoftwareAuthenticator(origin: "http://localhost")
    let owner = try expect(200, try await call(.POST, app + "/auth/providers/anon-user/login", ["provider": "anon-user"]), "anonymous")
    let ownerToken = owner["access_token"]!.stringValue!
    let creation = try expect(200, try await call(.POST, origin + "/api/client/v2.0/auth/passkeys/options", token: ownerToken), "options")
    _ = try expect(
        201,
        try await call(
            .POST, origin + "/api/client/v2.0/auth/passkeys", ["credential": try authenticator.create(creation["publicKey"]!)],
            token: ownerToken),
        "register")
    devices.append(authenticator)
}
let authenticators = devices

/// Which step each user may use next, and the server's step; the clock moves 30 s when a turn
/// is over, once however many tasks find it over (two moves at once would put codes already
/// handed out outside their window).
actor Steps {
    var now: Int64
    var next: [Int64]
    var moving: Task<Int64, any Error>?
    init(now: Int64, users: Int) {
        self.now = now
        next = Array(repeating: 0, count: users)
    }
    /// A time whose code user `i` has not used; nil when the clock must move first.
    func take(_ i: Int) -> Int64? {
        let step = now / 30
        let usable = max(next[i], step)  // the confirm's step is spent: start after it
        guard usable <= step + 1 else { return nil }
        next[i] = usable + 1
        return usable * 30
    }
    func move() async throws {
        if let moving {
            _ = try await moving.value
            return
        }
        let task = Task { try await serverNow(advancing: 30) }
        moving = task
        defer { moving = nil }
        now = max(now, try await task.value)
    }
}
let steps = Steps(now: try await serverNow(advancing: 60), users: users)
let generators = secrets
let nextUser = Atomic<Int>(0)

let anonymous = try await rate("anonymous login") { _ in
    _ = try expect(200, try await call(.POST, app + "/auth/providers/anon-user/login", ["provider": "anon-user"]), "anonymous")
}
let plain = try await rate("custom-JWT login (a returning user, no factor)") { _ in
    _ = try expect(200, try await jwtLogin("plain"), "jwt")
}
let totp = try await rate("TOTP login (custom JWT, MFARequired, the code)") { _ in
    var user = nextUser.add(1, ordering: .relaxed).newValue % users
    var time = await steps.take(user)
    while time == nil {
        try await steps.move()
        user = nextUser.add(1, ordering: .relaxed).newValue % users
        time = await steps.take(user)
    }
    let first = try expect(401, try await jwtLogin("totp-\(user)"), "first step")
    _ = try expect(
        200,
        try await call(
            .POST, app + "/auth/providers/mfa/login", ["mfaToken": first["mfaToken"]!, "code": .string(generators[user].code(at: time!))]),
        "second step")
}
let passkey = try await rate("passkey login (options, ES256 signature, login)") { i in
    let authenticator = authenticators[i / 1_000_000]
    let options = try expect(200, try await call(.POST, app + "/auth/providers/passkey/options"), "passkey options")
    _ = try expect(
        200, try await call(.POST, app + "/auth/providers/passkey/login", ["credential": try authenticator.get(options["publicKey"]!)]),
        "passkey login")
}
print(String(format: "TOTP login / anonymous login: %.2f; / custom-JWT login: %.2f", totp / anonymous, totp / plain))
print(String(format: "passkey login / anonymous login: %.2f", passkey / anonymous))
try await client.shutdown()
