// SPDX-License-Identifier: Apache-2.0

/// The client API a request came through, as hooks see it (their argument's `api`): the routes
/// of each API set it for the requests they answer.
enum ClientAPI: String, Sendable {
    case appServices = "app-services"
    case firebase

    /// The API of the request being answered (App Services' outside a Firebase route).
    @TaskLocal static var current: ClientAPI = .appServices
}
