// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird

/// The query of a trigger-run listing (the dev API's and the admin API's): `?state=` (`queued`,
/// `done` or `failed`) and `?limit=` (1 to 1000, 100 by default).
struct TriggerRunQuery {
    var state: TriggerRun.State?
    var limit = 100

    /// - Throws: 400 `InvalidParameter` naming the parameter that is wrong.
    init(_ request: Request) throws(ServiceError) {
        let query = request.uri.queryParameters
        if let s = query.get("state") {
            guard let parsed = TriggerRun.State(rawValue: s) else {
                throw ServiceError(.invalidParameter, "state must be \"queued\", \"done\" or \"failed\"")
            }
            state = parsed
        }
        if let l = query.get("limit") {
            guard let n = Int(l), (1...1000).contains(n) else { throw ServiceError(.invalidParameter, "limit must be 1 to 1000") }
            limit = n
        }
    }
}
