// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// What dev mode's webhook sink received (`POST /api/dev/v1/apps/{app}/webhooks`): a place a
/// plugin's `context.http` can post to in a script or a test, with no server of one's own. In
/// memory, the newest 1,000 per app.
final class DevWebhookSink: Sendable {
    private let received = Mutex<[String: [EJSON]]>([:])
    let limit = 1000

    func keep(_ request: EJSON, app: String) {
        received.withLock {
            $0[app, default: []].append(request)
            if $0[app]!.count > limit { $0[app]!.removeFirst() }
        }
    }

    /// The app's requests, oldest first.
    func requests(app: String) -> [EJSON] { received.withLock { $0[app] ?? [] } }
}
