// SPDX-License-Identifier: Apache-2.0
import Hummingbird

extension FirebaseError {
    /// The error as Google's APIs answer it: its status and its body.
    var response: Response {
        JSONResponse.make(body, status: .init(code: code), mode: .relaxed)
    }
}
