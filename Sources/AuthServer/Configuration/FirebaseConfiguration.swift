// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import JWTKit

/// An app's Firebase project: app key `firebase`. The app answers the Firebase Auth API
/// (`docs/server/firebase.md`) as that project, to the API keys it lists.
///
/// ```json
/// "firebase": { "projectId": "acme-prod", "apiKeys": ["AIzaSyExample"],
///               "serviceAccounts": [{"clientEmail": "backend@acme-prod.iam.gserviceaccount.com",
///                                    "publicKey": "-----BEGIN CERTIFICATE-----..."}] }
/// ```
///
/// `serviceAccounts` are the keys whose custom tokens (RS256, as the Admin SDKs sign them with
/// a service account's private key) `signInWithCustomToken` takes: the account's email and its
/// public key or certificate in PEM (never the private key: authsh only checks).
///
/// A client names its project by its API key (`?key=` or `X-Goog-Api-Key`), the Admin API and
/// the tokens by the project id. Without the key an app answers no Firebase request, except in
/// dev mode, where every app answers as the project of its own id, to any API key.
public struct FirebaseConfiguration: Sendable, Equatable {
    /// The project id: 1 to 63 lowercase letters, digits and hyphens (`demo-project`).
    public var projectId: String
    /// The API keys clients of the project use.
    public var apiKeys: [String]

    /// The service accounts whose custom tokens are taken.
    public var serviceAccounts: [ServiceAccount] = []

    /// A service account's email and public key (PEM: a public key or an X.509 certificate).
    public struct ServiceAccount: Sendable, Equatable {
        public var clientEmail: String
        public var publicKey: String

        public init(clientEmail: String, publicKey: String) {
            self.clientEmail = clientEmail
            self.publicKey = publicKey
        }
    }

    public init(projectId: String, apiKeys: [String], serviceAccounts: [ServiceAccount] = []) {
        self.projectId = projectId
        self.apiKeys = apiKeys
        self.serviceAccounts = serviceAccounts
    }

    /// An RSA public key of PEM text: a public key or an X.509 certificate; nil otherwise.
    static func publicKey(_ pem: String) -> Insecure.RSA.PublicKey? {
        if pem.contains("BEGIN CERTIFICATE") { return try? Insecure.RSA.PublicKey(certificatePEM: pem) }
        return try? Insecure.RSA.PublicKey(pem: pem)
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
        if let accounts = r.value("serviceAccounts") {
            guard case .array(let items) = accounts else {
                throw r.mismatch("serviceAccounts", "an array of {\"clientEmail\", \"publicKey\"}", accounts)
            }
            for (i, item) in items.enumerated() {
                var a = try ConfigReader(item, path: r.keyPath("serviceAccounts[\(i)]"))
                guard let email = try a.string("clientEmail"), !email.isEmpty, email.utf8.count <= 256 else {
                    throw ConfigError(key: a.keyPath("clientEmail"), reason: "must be the service account's email")
                }
                guard let pem = try a.string("publicKey"), Self.publicKey(pem) != nil else {
                    throw ConfigError(
                        key: a.keyPath("publicKey"), reason: "must be the service account's RSA public key or X.509 certificate, in PEM")
                }
                try a.finish()
                serviceAccounts.append(ServiceAccount(clientEmail: email, publicKey: pem))
            }
        }
        try r.finish()
    }

    /// As a config-file object (the dev API's GET).
    var ejson: EJSON {
        var d: EJSONDocument = ["projectId": .string(projectId), "apiKeys": .array(apiKeys.map(EJSON.string))]
        if !serviceAccounts.isEmpty {
            d["serviceAccounts"] = .array(
                serviceAccounts.map { ["clientEmail": .string($0.clientEmail), "publicKey": .string($0.publicKey)] })
        }
        return .document(d)
    }
}
