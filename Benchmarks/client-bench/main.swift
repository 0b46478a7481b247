// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthClient
import AuthProtocol
import Foundation
import NIOCore

/// `scripts/bench client`: AuthClient's overhead on an anonymous login against the same two
/// requests (login, profile) made with AsyncHTTPClient directly, and what the user store costs
/// per login once it holds 1,000 users; and the same login over Firebase Auth's API against
/// App Services'. Usage: client-bench ORIGIN [LOGINS]
let arguments = CommandLine.arguments

// `client-bench --store-writer DIR ORIGIN`: logs anonymous users in forever with the store in
// DIR, for the test that kills a writer mid-write (Tests/AuthClientTests/StoreTests.swift).
if arguments.count == 4, arguments[1] == "--store-writer" {
    let app = try App(id: "local", configuration: .init(baseURL: arguments[3], storageDirectory: arguments[2]))
    FileHandle.standardOutput.write(Data("writing\n".utf8))
    while true { _ = try await app.login(credentials: .anonymous(reuse: false)) }
}

guard arguments.count >= 2, arguments[1].hasPrefix("http") else {
    FileHandle.standardError.write(Data("usage: client-bench ORIGIN [LOGINS] (ORIGIN: http://host:port)\n".utf8))
    exit(64)
}
let origin = arguments[1]
let logins = Int(arguments.dropFirst(2).first ?? "") ?? 2000
let client = AsyncHTTPTransport.sharedClient
let clock = ContinuousClock()

func post(_ url: String, _ body: String) async throws -> EJSON {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(string: body))
    let response = try await client.execute(request, timeout: .seconds(30))
    return try EJSON(parsing: Array(buffer: try await response.body.collect(upTo: 1 << 20)))
}

func get(_ url: String, token: String) async throws -> EJSON {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    let response = try await client.execute(request, timeout: .seconds(30))
    return try EJSON(parsing: Array(buffer: try await response.body.collect(upTo: 1 << 20)))
}

func perLogin(_ body: () async throws -> Void) async throws -> Double {
    for _ in 0..<50 { try await body() }  // warm-up: connections, caches
    let start = clock.now
    for _ in 0..<logins { try await body() }
    let d = clock.now - start
    return (Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) * 1e-12) / Double(logins)
}

let loginURL = origin + Routes.login("local", provider: ProviderType.anonymous)
let direct = try await perLogin {
    let reply = try await post(loginURL, #"{"provider":"anon-user"}"#)
    _ = try await get(origin + Routes.profile, token: reply["access_token"]!.stringValue!)
}
let memoryApp = try App(id: "local", configuration: .init(baseURL: origin))
let viaClient = try await perLogin { _ = try await memoryApp.login(credentials: .anonymous(reuse: false)) }
print("anonymous login (login + profile), sequential, \(logins) each:")
print("  AsyncHTTPClient directly: \(Int(direct)) us; AuthClient (users in memory): \(Int(viaClient)) us")
print("  AuthClient / direct: \(String(format: "%.2f", viaClient / direct))x (goal: at most 1.2x)")

// The same login over Firebase Auth's API (the dev server answers it as the Auth emulator
// does, project `local`): `accounts:signUp` against App Services' anonymous login, three
// alternating rounds, the median ratio (issue 49's goal: at least 0.9).
let firebaseApp = try App(firebase: FirebaseProject(projectId: "local", emulator: origin))
var ratios: [Double] = []
var firebaseTimes: [Double] = []
var servicesTimes: [Double] = []
for _ in 0..<3 {
    let services = try await perLogin { _ = try await memoryApp.login(credentials: .anonymous(reuse: false)) }
    let firebase = try await perLogin { _ = try await firebaseApp.login(credentials: .anonymous(reuse: false)) }
    servicesTimes.append(services)
    firebaseTimes.append(firebase)
    ratios.append(services / firebase)
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("anonymous login over Firebase's API (accounts:signUp) against App Services' (login), AuthClient, 3 alternating rounds:")
print("  App Services \(Int(median(servicesTimes))) us; Firebase \(Int(median(firebaseTimes))) us per login")
print("  Firebase / App Services (logins per second): \(String(format: "%.2f", median(ratios))) (goal: at least 0.9)")

let storage = FileManager.default.temporaryDirectory.appendingPathComponent("authsh-client-bench-\(UUID().uuidString)").path
defer { try? FileManager.default.removeItem(atPath: storage) }
let storedApp = try App(id: "local", configuration: .init(baseURL: origin, storageDirectory: storage))
for _ in 0..<1000 { _ = try await storedApp.login(credentials: .anonymous(reuse: false)) }
let stored = try await perLogin { _ = try await storedApp.login(credentials: .anonymous(reuse: false)) }
let files = try FileManager.default.subpathsOfDirectory(atPath: storage).filter { $0.hasSuffix(".json") }
let sizes = try files.map { try FileManager.default.attributesOfItem(atPath: storage + "/" + $0)[.size] as? Int ?? 0 }
print("user store with \(files.count) users (1,000 before the timed logins):")
print("  login with the store: \(Int(stored)) us; without: \(Int(viaClient)) us; the store adds \(Int(stored - viaClient)) us per login")
print("  bytes written per login: one user file of \(sizes.max() ?? 0) bytes at most, plus the 24-byte `current` file")
