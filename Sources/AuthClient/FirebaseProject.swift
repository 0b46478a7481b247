// SPDX-License-Identifier: Apache-2.0

/// A Firebase project an ``App`` speaks Firebase Auth's REST API to (Identity Toolkit v1 and
/// Secure Token), instead of App Services' client API: at Google's hosts, or at an emulator's
/// or authsh's address, where both APIs are served under paths named after Google's hosts
/// (`http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/...`).
public struct FirebaseProject: Sendable, Equatable {
    /// The project's id (the app's id here).
    public var projectId: String
    /// The Web API key sent as `?key=`; an emulator takes any.
    public var apiKey: String
    /// Identity Toolkit's base, up to and including `/v1`.
    public var identityToolkit: String
    /// Secure Token's base, up to and including `/v1`.
    public var secureToken: String

    /// The project at Google's own hosts.
    public init(projectId: String, apiKey: String) {
        self.projectId = projectId
        self.apiKey = apiKey
        identityToolkit = "https://identitytoolkit.googleapis.com/v1"
        secureToken = "https://securetoken.googleapis.com/v1"
    }

    /// The project at an emulator's address: `host` is `HOST:PORT` as the SDKs take it
    /// (`127.0.0.1:9099`, `FIREBASE_AUTH_EMULATOR_HOST`), or an origin (`http://127.0.0.1:9099`,
    /// authsh's address). An emulator takes any API key.
    public init(projectId: String, apiKey: String = "fake-api-key", emulator host: String) {
        self.projectId = projectId
        self.apiKey = apiKey
        var origin = host.contains("://") ? host : "http://" + host
        while origin.hasSuffix("/") { origin.removeLast() }
        identityToolkit = origin + "/identitytoolkit.googleapis.com/v1"
        secureToken = origin + "/securetoken.googleapis.com/v1"
    }

    /// The origin requests go to (for errors and the user store's name).
    var origin: String {
        guard let scheme = identityToolkit.firstRange(of: "://") else { return identityToolkit }
        let rest = identityToolkit[scheme.upperBound...]
        let host = rest.prefix { $0 != "/" }
        let origin = identityToolkit[..<scheme.upperBound] + host
        return host == "identitytoolkit.googleapis.com" ? "https://identitytoolkit.googleapis.com" : String(origin)
    }
}
