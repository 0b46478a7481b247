// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Firebase's phone sign-in (`accounts:sendVerificationCode`, `accounts:signInWithPhoneNumber`)
/// on the app's `phone` provider: a 6-digit code texted to a number, whose `sessionInfo` signs
/// in, or links the number to the user of an ID token. The user holds a `phone` identity, the
/// number in E.164.
///
/// The `sessionInfo` is the number and the code's digest, sealed under the server's key
/// (``SealedStates``): nothing is written until it is used, once. A wrong code may be tried
/// again, within the token rate limit per number (10 in 10 minutes by default), so a guess
/// at a million codes never gets far. Texts go out through the app's `sendSms` hook, within
/// the `sms` rate limit per address and per number; in dev mode they go to the outbox too
/// (kind `sms`, the emulator's `verificationCodes`). A test number the app lists gets no text:
/// its code is the listed one.
struct FirebasePhoneSignIn {
    let accounts: FirebaseAccounts
    let states: SealedStates
    let hooks: AuthHooks
    /// The dev outbox (dev mode only).
    let outbox: DevOutbox?

    /// How long a code stays good.
    static let lifetime: Int64 = 600

    /// `accounts:sendVerificationCode`: the code texted, the `sessionInfo` that proves it.
    func sendCode(phoneNumber: String?, project: FirebaseProjects.Project, address: String) async throws -> String {
        let app = project.app
        let phone = try provider(of: app)
        guard let number = phoneNumber, AppConfiguration.Phone.isValid(number) else {
            throw FirebaseError.invalid("INVALID_PHONE_NUMBER", "Invalid format.")
        }
        let test = phone.testNumbers[number]
        guard test != nil || phone.allows(number) else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "SMS unable to be sent until this region enabled by the app developer.")
        }
        try await accounts.abuse.checkRate(.sms, app: app, address: address, account: number)
        let code = test ?? Self.newCode()
        let now = accounts.clock.now
        let sessionInfo = try states.seal(
            ["p": .string(number), "d": .string(Hex.encode(Secrets.digest(code)))], kind: .phone, app: app.id, expires: now + Self.lifetime)
        guard test == nil else { return sessionInfo }
        let message = "\(code) is your code for \(app.id)."
        let sent = try await hooks.sendSms(to: number, code: code, message: message, address: address, app: app)
        guard let outbox else {
            guard sent else { throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "the app has no sendSms hook: it cannot send text messages") }
            return sessionInfo
        }
        // Dev mode: the text is kept (once the hook, if any, sent it).
        outbox.keep(
            OutboxMessage(
                to: number, subject: "", body: message, kind: Self.outboxKind, token: code, tokenId: "", link: sessionInfo, sentAt: now),
            app: app.id)
        return sessionInfo
    }

    /// The app's `phone` provider: the one it lists, else in dev mode the emulator's (every
    /// app takes phone sign-ins); `OPERATION_NOT_ALLOWED` otherwise.
    private func provider(of app: AppRuntime) throws(FirebaseError) -> AppConfiguration.Phone {
        if let phone = app.config.providers.phone { return phone }
        guard accounts.idTokens.dev else { throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "phone sign-in is off for this app") }
        return AppConfiguration.Phone()
    }

    /// The outbox kind of a text.
    static let outboxKind = "sms"

    /// `accounts:signInWithPhoneNumber`: the number of a `sessionInfo` whose code is `code`
    /// signs in (a new user when no user holds it), or, with `idToken`, is linked to its user
    /// (`PHONE_NUMBER_EXISTS` when another user holds it). The answer and the number.
    func signIn(sessionInfo: String, code: String, idToken: String?, project: FirebaseProjects.Project, address: String) async throws
        -> (signedIn: FirebaseAccounts.SignedIn, phoneNumber: String)
    {
        let app = project.app
        _ = try provider(of: app)
        let now = accounts.clock.now
        guard let opened = states.open(sessionInfo, kind: .phone, now: now), opened.app == app.id,
            let number = opened.content["p"]?.stringValue, let digest = opened.content["d"]?.stringValue
        else { throw FirebaseError.invalid("INVALID_SESSION_INFO") }
        try await accounts.abuse.checkRate(.token, app: app, address: address, account: number)
        guard Secrets.constantTimeEqual(Array(Hex.encode(Secrets.digest(code)).utf8), Array(digest.utf8)) else {
            throw FirebaseError.invalid("INVALID_CODE")
        }
        guard try await states.take(sessionInfo, kind: .phone, now: now) != nil else { throw FirebaseError.invalid("INVALID_SESSION_INFO") }
        let identity = FirebaseImport.phoneIdentity(number, app: app)
        var proof = LoginService.Proof(identity: identity, profile: ["phone_number": .string(number)])
        // RFC 8176's `sms`: a code sent to the number proved it.
        proof.methods = ["sms"]
        if let idToken {
            do {
                return (try await accounts.link(proof, to: idToken, project: project), number)
            } catch let error as FirebaseError where error.message == "FEDERATED_USER_ID_ALREADY_LINKED" {
                throw FirebaseError.invalid("PHONE_NUMBER_EXISTS")
            }
        }
        return (try await accounts.signIn(proof, project: project, address: address), number)
    }

    /// Six random digits, uniformly.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(UInt32.random(in: 0..<1_000_000, using: &generator))
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
