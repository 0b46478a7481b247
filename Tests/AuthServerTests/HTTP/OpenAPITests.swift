// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The HTTP contract, `docs/openapi.json` (OpenAPI 3.1), and the routes agree: every route of
/// the client, admin and dev APIs and the probes is documented with its method, nothing is
/// documented that is not routed, and the server serves the document as it is in the
/// repository (the `EmbedOpenAPI` build plugin embeds it).
@Suite(.timeLimit(.minutes(5))) struct OpenAPITests {
    static let file = Binary.repository + "/docs/openapi.json"

    /// Routes that are not part of the contract: the dev identity provider (it plays third
    /// parties' servers), the dev server's example passkey page, the Auth emulator's sign-in
    /// pages and the admin web page (HTML).
    static func isContract(_ path: String) -> Bool {
        !path.hasPrefix("/dev/idp") && !path.hasPrefix("/dev/passkeys/") && !path.hasPrefix("/emulator/auth/")
            && !(path == "/admin" || path.hasPrefix("/admin/"))
    }

    /// Every (method, path) the server routes with every surface on, paths in OpenAPI's form
    /// (`{app}` for `:app`).
    static func routes() async throws -> Set<String> {
        var config = TestServer.configuration(dev: true)
        config.adminKeys = try AdminKeys([(name: "ops", key: "ops-key-abcdefabcdefabcdefabcdefabcdef")])
        config.metricsPort = 0
        let store = try SQLiteStore(path: nil)
        let services = try await ServerServices(configuration: config, store: store, metrics: nil)
        let router = buildRouter(config, services: services, metrics: nil)
        var routes: Set<String> = []
        for route in router.routes {
            let path =
                "/"
                + "\(route.path)".split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                .joined(separator: "/")
            if isContract(path) { routes.insert("\(route.method.rawValue) \(path)") }
        }
        return routes
    }

    /// Every (method, path) the document describes.
    static func documented() throws -> Set<String> {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations: Set<String> = []
        for (path, item) in paths {
            for method in item.keys where ["get", "put", "post", "delete", "patch", "head", "options"].contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndNothingElse() async throws {
        let routes = try await Self.routes(), documented = try Self.documented()
        #expect(routes.count >= 50, "\(routes.count) routes")
        #expect(routes.subtracting(documented).isEmpty, "routed, not documented: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented, not routed: \(documented.subtracting(routes).sorted())")
    }

    @Test func theServerServesTheDocumentOfTheRepository() async throws {
        let text = try String(contentsOfFile: Self.file, encoding: .utf8)
        #expect(OpenAPIDocument.json == text.trimmingCharacters(in: .newlines), "the embedded document is not the repository's")
        try await TestServer.run(TestServer.configuration(dev: false)) { (c: Client) async throws in
            try await c.client.execute(uri: "/api/openapi.json", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body) == OpenAPIDocument.json)
            }
        }
    }
}
