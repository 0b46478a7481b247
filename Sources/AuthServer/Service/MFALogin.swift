// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// The second step of a login, for a user with a second factor (docs/server/accounts.md,
/// "Second factors"). The first factor's proof is kept sealed in the store under an
/// `mfaToken` (``SealedSignIn``, kind `mfa`: any instance can finish it), for 5 minutes and 5
/// attempts; a TOTP code or a recovery code completes it, once.
///
/// A wrong code counts towards the user's failed-login back-off (``LoginBackoff``, keyed by the
/// user and the address), as a wrong password does for its account: someone who has the
/// password cannot guess codes faster by asking for new tokens.
struct MFALogin: Sendable {
    let store: any SecondFactorStore & SignInStore
    let clock: ServerClock
    let abuse: AbuseControls
    let backoff: LoginBackoff
    /// Checks a second step made with a passkey.
    let passkeys: PasskeyService

    /// The path's provider name of a completion: `POST {app}/auth/providers/mfa/login`.
    static let provider = "mfa"
    static let lifetime: Int64 = 300
    static let attempts = 5

    /// A login waiting for its second factor.
    struct Pending: Sendable {
        var proof: LoginService.Proof
        var userId: String
        var deviceId: String
        /// How many wrong codes it has had.
        var failures: Int
        var expires: Int64
        /// The WebAuthn challenge of a second step with a passkey (when the user holds one).
        var challenge: String? = nil
    }

    /// Keeps the pending login and answers the `MFARequired` error that carries its token, the
    /// factors it may be completed with and, when one is a passkey, the options of
    /// `navigator.credentials.get` (`passkeyOptions`, their challenge kept with the login).
    func challenge(_ proof: LoginService.Proof, userId: String, deviceId: String, factors: SecondFactors, app: AppRuntime)
        async throws -> ServiceError
    {
        let token = Secrets.randomHex(bytes: 24)
        var pending = Pending(proof: proof, userId: userId, deviceId: deviceId, failures: 0, expires: clock.now + Self.lifetime)
        // Only factors of another kind than the first step's: never a passkey after a passkey.
        var usable = AuthenticationMethods.secondFactors(factors.usable, after: proof.provenMethods)
        var details: EJSONDocument = ["mfaToken": .string(token)]
        if usable.contains("passkey") {
            if let (options, challenge) = try await passkeys.secondFactorOptions(userId: userId, app: app) {
                pending.challenge = challenge
                details["passkeyOptions"] = options
            } else {
                usable.removeAll { $0 == "passkey" }  // the app's passkeys were turned off
            }
        }
        guard !usable.isEmpty else {
            throw ServiceError(.authError, "this user's second factors are all of the first step's kind: log in another way")
        }
        details["factors"] = .array(usable.map(EJSON.string))
        try await keep(pending, token: token, app: app.id)
        AuditTrail.event("mfa_required")
        var error = ServiceError(
            .mfaRequired, "this user has a second factor: complete the login with the mfaToken and a code (within 5 minutes)")
        error.details = details
        return error
    }

    /// The pending login of the body's `mfaToken` once its second factor is right, and the
    /// method (``AuthenticationMethods``) that completed it: `code` (6 digits: TOTP; else a
    /// recovery code) or `credential` (a passkey's assertion over the login's challenge). The
    /// token is spent then; a wrong answer keeps it for its remaining attempts.
    func complete(_ body: InputFields, app: AppRuntime, address: String) async throws -> (Pending, String) {
        let token = try body.string("mfaToken")
        let credential = body.document["credential"]
        let code = credential == nil ? try body.string("code").filter { $0 != " " } : ""
        try await abuse.checkRate(.login, app: app, address: address)
        let now = clock.now
        guard let found = try await store.takeSignIn(id: SealedStates.id(token), kind: .mfa), found.expiresAt > now,
            found.appId == app.id, let content = OAuthFlows.open(found, secret: token), var pending = Self.pending(content)
        else {
            throw ServiceError(.invalidSession, "mfaToken is unknown, used or expired: log in again")
        }
        pending.expires = found.expiresAt
        AuditTrail.user(pending.userId, app: app.id)
        AuditTrail.provider(pending.proof.identity.providerType)
        let account = AbuseControls.backoffAccount(app, "mfa\u{0}" + pending.userId)
        let limited = abuse.rateLimited(app)
        let standing = limited ? try await backoff.standing(address: address, account: account, now: now) : nil
        if let wait = standing?.wait {
            try await keep(pending, token: token, app: app.id)
            AuditTrail.event("lockout")
            throw AbuseControls.tooMany(wait)
        }
        let method: String
        do {
            method = try await answer(code: code, credential: credential, pending: pending, app: app, now: now)
        } catch let refusal as ServiceError {
            if limited { try await backoff.failed(address: address, account: account, now: now) }
            pending.failures += 1
            let left = Self.attempts - pending.failures
            if left > 0 { try await keep(pending, token: token, app: app.id) }
            AuditTrail.event("mfa_failed")
            throw ServiceError(
                .invalidMFACode,
                refusal.message + (left > 0 ? " (\(left) attempt\(left == 1 ? "" : "s") left with this mfaToken)" : ": log in again"))
        }
        if standing?.failed == true { try await backoff.succeeded(address: address, account: account) }
        return (pending, method)
    }

    /// The method (``AuthenticationMethods``) of a right answer to the step, spent; a
    /// `ServiceError` saying what was wrong otherwise. The answer must be another kind of proof
    /// than the first step's (``AuthenticationMethods/secondFactors(_:after:)``): after a
    /// passkey, no passkey (the same one or another) completes the login.
    private func answer(code: String, credential: EJSON?, pending: Pending, app: AppRuntime, now: Int64) async throws -> String {
        let method = credential == nil ? AuthenticationMethods.oneTimePassword : AuthenticationMethods.keyPossession
        guard !pending.proof.provenMethods.contains(method) else {
            throw ServiceError(
                .invalidMFACode,
                "the first step of this login was a \(method == AuthenticationMethods.keyPossession ? "passkey" : "one-time code"): "
                    + "complete it with another kind of factor")
        }
        if credential != nil {
            guard let challenge = pending.challenge else { throw ServiceError(.invalidMFACode, "this login offered no passkey") }
            try await passkeys.verifySecondFactor(credential, challenge: challenge, userId: pending.userId, app: app)
            AuditTrail.event("mfa_passkey")
            return method
        }
        let isTOTP = code.count == 6 && code.utf8.allSatisfy { (48...57).contains($0) }
        guard try await check(code, isTOTP: isTOTP, userId: pending.userId, now: now) else {
            throw ServiceError(.invalidMFACode, isTOTP ? "wrong, used or expired TOTP code" : "unknown or used recovery code")
        }
        AuditTrail.event(isTOTP ? "mfa_totp" : "mfa_recovery_code")
        return method
    }

    /// Spends the code if it is right: a TOTP code's step (once, and none before it after),
    /// or a recovery code.
    private func check(_ code: String, isTOTP: Bool, userId: String, now: Int64) async throws -> Bool {
        guard isTOTP else { return try await store.useRecoveryCode(userId: userId, digest: RecoveryCodes.digest(code)) }
        guard let factor = try await store.secondFactors(userId: userId).totp, factor.confirmedAt != nil,
            let step = TOTP(secret: factor.secret).matchingStep(code, at: now), step > factor.lastStep
        else { return false }
        return try await store.useTOTPStep(userId: userId, step: step)
    }

    private func keep(_ pending: Pending, token: String, app: String) async throws {
        var content: EJSONDocument = [
            "proof": .document(OAuthFlows.document(pending.proof)), "userId": .string(pending.userId),
            "deviceId": .string(pending.deviceId), "failures": .int64(Int64(pending.failures)),
        ]
        if let challenge = pending.challenge { content["challenge"] = .string(challenge) }
        try await store.insertSignIn(OAuthFlows.seal(content, secret: token, app: app, kind: .mfa, expires: pending.expires))
    }

    private static func pending(_ d: EJSONDocument) -> Pending? {
        guard let proof = d["proof"]?.documentValue.flatMap(OAuthFlows.proof), let userId = d["userId"]?.stringValue,
            let deviceId = d["deviceId"]?.stringValue, case .int64(let failures)? = d["failures"]
        else { return nil }
        return Pending(
            proof: proof, userId: userId, deviceId: deviceId, failures: Int(failures), expires: 0,  // the row's
            challenge: d["challenge"]?.stringValue)
    }
}
