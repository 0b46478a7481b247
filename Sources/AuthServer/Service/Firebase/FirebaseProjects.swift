// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Which app a Firebase request is for: a client names its project by its API key, the Admin
/// API and the tokens by the project id (``FirebaseConfiguration``). In dev mode every app
/// answers as the project of its own id too, and to any API key (as the Auth emulator does):
/// a key no app lists is the first app's.
struct FirebaseProjects: Sendable {
    /// An app as a Firebase project.
    struct Project: Sendable {
        let app: AppRuntime
        /// Its project id.
        let id: String
    }

    /// The apps, in the configuration's order (their configurations are read as they are now:
    /// the dev API may change them).
    private let apps: [AppRuntime]
    private let dev: Bool

    init(apps: [AppRuntime], dev: Bool) {
        self.apps = apps
        self.dev = dev
    }

    /// The project an app answers as now: its configured one, else in dev mode its own id
    /// (when that may name a project and no configured project holds it).
    private func project(_ app: AppRuntime) -> Project? {
        if let firebase = app.config.firebase { return Project(app: app, id: firebase.projectId) }
        guard dev, FirebaseConfiguration.isProjectId(app.id),
            !apps.contains(where: { $0.config.firebase?.projectId == app.id })
        else { return nil }
        return Project(app: app, id: app.id)
    }

    /// The project of a client request's API key; Google's refusals for none and for one no
    /// project has.
    func project(apiKey: String?) throws(FirebaseError) -> Project {
        guard let apiKey, !apiKey.isEmpty else { throw FirebaseError.missingAPIKey }
        if let app = apps.first(where: { $0.config.firebase?.apiKeys.contains(apiKey) == true }), let project = project(app) {
            AuditTrail.app(project.app.id)
            return project
        }
        if dev, let first = apps.lazy.compactMap({ project($0) }).first {
            AuditTrail.app(first.app.id)
            return first
        }
        throw FirebaseError.invalidAPIKey
    }

    /// The project `id` names, or nil.
    func project(id: String) -> Project? { apps.lazy.compactMap { project($0) }.first { $0.id == id } }

    /// The project a path's `id` names, or Firebase's `404 PROJECT_NOT_FOUND`.
    func named(_ id: String?) throws(FirebaseError) -> Project {
        guard let project = project(id: id ?? "") else {
            throw FirebaseError(404, "PROJECT_NOT_FOUND", status: "NOT_FOUND", reason: "notFound")
        }
        return project
    }
}
