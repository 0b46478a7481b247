// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An app's Firebase project: app key `firebase`. The app answers the Firebase Auth API
/// (`docs/server/firebase.md`) as that project, to the API keys it lists.
///
/// ```json
/// "firebase": { "projectId": "acme-prod", "apiKeys": ["AIzaSyExample"] }
/// ```
///
/// A client names its project by its API key (`?key=` or `X-Goog-Api-Key`), the Admin API and
/// the tokens by the project id. Without the key an app answers no Firebase request, except in
/// dev mode, where every app answers as the project of its own id, to any API key.
public struct FirebaseConfiguration: Sendable, Equatable {
    /// The project id: 1 to 63 lowercase letters, digits and hyphens (`demo-project`).
    public var projectId: String
    /// The API keys clients of the project use.
    public var apiKeys: [String]

    public init(projectId: String, apiKeys: [String]) {
        self.projectId = projectId
        self.apiKeys = apiKeys
    }

    /// Whether `id` may name a project.
    static func isProjectId(_ id: String) -> Bool {
        (1...63).contains(id.utf8.count)
            && id.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let projectId = try r.string("projectId"), Self.isProjectId(projectId) else {
            throw ConfigError(key: r.keyPath("projectId"), reason: "must be 1 to 63 lowercase letters, digits and hyphens (acme-prod)")
        }
        let keys = try r.strings("apiKeys") ?? []
        guard !keys.isEmpty else {
            throw ConfigError(key: r.keyPath("apiKeys"), reason: "must list the project's API keys (at least one)")
        }
        for (i, key) in keys.enumerated()
        where !(8...128).contains(key.utf8.count) || !key.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) {
            throw ConfigError(key: r.keyPath("apiKeys[\(i)]"), reason: "must be 8 to 128 printable ASCII characters")
        }
        self.projectId = projectId
        apiKeys = keys
        try r.finish()
    }

    /// As a config-file object (the dev API's GET).
    var ejson: EJSON {
        ["projectId": .string(projectId), "apiKeys": .array(apiKeys.map(EJSON.string))]
    }
}
