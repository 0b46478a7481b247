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

    private let byKey: [String: Project]
    private let byId: [String: Project]
    /// Dev mode's project for any other key: the first app's.
    private let fallback: Project?

    init(apps: [AppRuntime], dev: Bool) {
        var byKey: [String: Project] = [:]
        var byId: [String: Project] = [:]
        for app in apps {
            if let firebase = app.config.firebase {
                let project = Project(app: app, id: firebase.projectId)
                byId[firebase.projectId] = project
                for key in firebase.apiKeys { byKey[key] = project }
            }
        }
        // Dev mode: every app under its own id, unless a configured project holds that id.
        if dev {
            for app in apps where app.config.firebase == nil && byId[app.id] == nil && FirebaseConfiguration.isProjectId(app.id) {
                byId[app.id] = Project(app: app, id: app.id)
            }
        }
        self.byKey = byKey
        self.byId = byId
        fallback = dev ? apps.first.flatMap { app in byId.values.first { $0.app.id == app.id } } : nil
    }

    /// The project of a client request's API key; Google's refusals for none and for one no
    /// project has.
    func project(apiKey: String?) throws(FirebaseError) -> Project {
        guard let apiKey, !apiKey.isEmpty else { throw FirebaseError.missingAPIKey }
        if let project = byKey[apiKey] ?? fallback { return project }
        throw FirebaseError.invalidAPIKey
    }

    /// The project `id` names, or nil.
    func project(id: String) -> Project? { byId[id] }

    /// The project an app answers as, or nil.
    func project(of app: AppRuntime) -> Project? { byId.values.first { $0.app.id == app.id } }
}
