// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Firebase's phone sign-in (`accounts:sendVerificationCode`, `accounts:signInWithPhoneNumber`)
/// on the app's `phone` provider: a 6-digit code texted to a number (``PhoneCodes``), whose
/// `sessionInfo` signs in, or links the number to the user of an ID token. The user holds a
/// `phone` identity, the number in E.164.
///
/// The `sessionInfo` is the number and the code's digest, sealed under the server's key
/// (``SealedStates``): nothing is written until it is used, once. A wrong code may be tried
/// again, within the token rate limit per number (10 in 10 minutes by default), so a guess
/// at a million codes never gets far.
struct FirebasePhoneSignIn {
    let accounts: FirebaseAccounts
    let states: SealedStates
    let codes: PhoneCodes

    /// `accounts:sendVerificationCode`: the code texted, the `sessionInfo` that proves it.
    func sendCode(phoneNumber: String?, project: FirebaseProjects.Project, address: String) async throws -> String {
        let app = project.app
        let now = accounts.clock.now
        return try await Self.texting {
            try await codes.send(to: phoneNumber ?? "", app: app, address: address) { digest in
                try states.seal(
                    ["p": .string(phoneNumber ?? ""), "d": .string(digest)], kind: .phone, app: app.id, expires: now + PhoneCodes.lifetime)
            }
        }
    }

    /// Runs `body`, a text's sending, answering its refusal as Firebase words it.
    static func texting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let refusal as PhoneCodes.Refusal {
            switch refusal {
            case .invalidNumber: throw FirebaseError.invalid("INVALID_PHONE_NUMBER", "Invalid format.")
            case .regionNotAllowed:
                throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "SMS unable to be sent until this region enabled by the app developer.")
            case .phoneOff: throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "phone sign-in is off for this app")
            case .noHook: throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "the app has no sendSms hook: it cannot send text messages")
            }
        }
    }

    /// `accounts:signInWithPhoneNumber`: the number of a `sessionInfo` whose code is `code`
    /// signs in (a new user when no user holds it), or, with `idToken`, is linked to its user
    /// (`PHONE_NUMBER_EXISTS` when another user holds it). The answer and the number.
    func signIn(sessionInfo: String, code: String, idToken: String?, project: FirebaseProjects.Project, address: String) async throws
        -> (signedIn: FirebaseAccounts.SignedIn, phoneNumber: String)
    {
        let app = project.app
        guard codes.configuration(of: app) != nil else { throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "phone sign-in is off for this app") }
        let now = accounts.clock.now
        guard let opened = states.open(sessionInfo, kind: .phone, now: now), opened.app == app.id,
            let number = opened.content["p"]?.stringValue, let digest = opened.content["d"]?.stringValue
        else { throw FirebaseError.invalid("INVALID_SESSION_INFO") }
        try await accounts.abuse.checkRate(.token, app: app, address: address, account: number)
        guard PhoneCodes.matches(code, digest: digest) else { throw FirebaseError.invalid("INVALID_CODE") }
        guard try await states.take(sessionInfo, kind: .phone, now: now) != nil else { throw FirebaseError.invalid("INVALID_SESSION_INFO") }
        let identity = FirebaseImport.phoneIdentity(number, app: app)
        var proof = LoginService.Proof(identity: identity, profile: ["phone_number": .string(number)])
        // RFC 8176's `sms`: a code sent to the number proved it.
        proof.methods = [AuthenticationMethods.textMessage]
        if let idToken {
            do {
                return (try await accounts.link(proof, to: idToken, project: project), number)
            } catch let error as FirebaseError where error.message == "FEDERATED_USER_ID_ALREADY_LINKED" {
                throw FirebaseError.invalid("PHONE_NUMBER_EXISTS")
            }
        }
        return (try await accounts.signIn(proof, project: project, address: address), number)
    }
}
