// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

extension ServerClock {
    /// A new id (users, identities, sessions, keys, token ids): 24 hex digits stamped with
    /// this clock's time.
    func newId() -> String {
        ObjectId(seconds: UInt32(truncatingIfNeeded: now)).hex
    }
}
