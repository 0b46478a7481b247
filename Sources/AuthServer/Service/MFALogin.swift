// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// The second step of a login, for a user with a second factor (docs/server/accounts.md,
/// "Second factors"). The first factor's proof is kept sealed in the store under an
/// `mfaToken` (``SealedSignIn``, kind `mfa`: any instance can finish it), for 5 minutes and 5
/// attempts; a TOTP code, a code texted to a phone factor (asked for first, ``sendPhoneCode``),
/// a passkey or a recovery code completes it, once.
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
    /// Texts a phone factor's code.
    let phones: PhoneCodes

    /// The path's provider name of a completion: `POST {app}/auth/providers/mfa/login`.
    static let provider = "mfa"
    static let lifetime: Int64 = 300
    static let attempts = 5
    /// The refusal of a first step whose user's second factors are all of its kind (a phone
    /// sign-in of a user whose only factor is a phone).
    static let sameKindOnly = "this user's second factors are all of the first step's kind: log in another way"

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
        /// The code texted to a phone factor for this login, when one was asked for.
        var phone: PhoneStep? = nil
    }

    /// A code texted to one of the user's phone factors, waiting to be typed.
    struct PhoneStep: Sendable {
        var enrollmentId: String
        /// The code's digest (``PhoneCodes/digest(_:)``).
        var digest: String
        /// What the text's answer names it by (Firebase's `sessionInfo`).
        var session: String
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
            throw ServiceError(.authError, Self.sameKindOnly)
        }
        details["factors"] = .array(usable.map(EJSON.string))
        if usable.contains("phone") {
            // Which number to text: its id, and the number with all but its last 4 digits hidden.
            details["phones"] = .array(
                factors.phones.map { ["enrollmentId": .string($0.enrollmentId), "phoneNumber": .string(Self.obscured($0.phoneNumber))] })
        }
        try await keep(pending, token: token, app: app.id)
        AuditTrail.event("mfa_required")
        var error = ServiceError(
            .mfaRequired, "this user has a second factor: complete the login with the mfaToken and a code (within 5 minutes)")
        error.details = details
        return error
    }

    /// The pending login of the body's `mfaToken` once its second factor is right, and the
    /// method (``AuthenticationMethods``) that completed it: `code` (6 digits: the code texted
    /// for this login if one was, else TOTP; else a recovery code; `factor` may name one of
    /// `totp`, `phone`, `recovery_code`) or `credential` (a passkey's assertion over the
    /// login's challenge). The token is spent then; a wrong answer keeps it for its remaining
    /// attempts.
    func complete(_ body: InputFields, app: AppRuntime, address: String) async throws -> (Pending, String) {
        let token = try body.string("mfaToken")
        let session = try body.optionalString("sessionInfo")
        let credential = body.document["credential"]
        let code = credential == nil ? try body.string("code").filter { $0 != " " } : ""
        let factor = try body.optionalString("factor")
        guard factor == nil || ["totp", "phone", "recovery_code"].contains(factor) else {
            throw ServiceError(.invalidParameter, "factor is one of totp, phone and recovery_code")
        }
        try await abuse.checkRate(.login, app: app, address: address)
        let now = clock.now
        var pending = try await take(token, app: app)
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
            method = try await answer(
                Answer(code: code, factor: factor, session: session, credential: credential), pending: pending, app: app, now: now)
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

    /// What the second step was answered with.
    private struct Answer {
        var code: String
        var factor: String?
        /// The `sessionInfo` of a texted code (Firebase's finalize names it).
        var session: String?
        var credential: EJSON?

        /// The factor type the answer is for: the one named, else by its shape.
        func type(_ pending: Pending) -> String {
            if let factor { return factor }
            if credential != nil { return "passkey" }
            guard code.count == 6, code.utf8.allSatisfy({ (48...57).contains($0) }) else { return "recovery_code" }
            return pending.phone != nil ? "phone" : "totp"
        }
    }

    /// The method (``AuthenticationMethods``) of a right answer to the step, spent; a
    /// `ServiceError` saying what was wrong otherwise. The answer must be another kind of proof
    /// than the first step's (``AuthenticationMethods/secondFactors(_:after:)``): after a
    /// passkey, no passkey (the same one or another) completes the login; after a phone
    /// sign-in, no phone factor.
    private func answer(_ answer: Answer, pending: Pending, app: AppRuntime, now: Int64) async throws -> String {
        let type = answer.type(pending)
        let method = AuthenticationMethods.method(ofFactor: type)
        guard !pending.proof.provenMethods.contains(method) else {
            throw ServiceError(
                .invalidMFACode, "the first step of this login was a \(Self.noun(method)): complete it with another kind of factor")
        }
        switch type {
        case "passkey":
            guard let challenge = pending.challenge else { throw ServiceError(.invalidMFACode, "this login offered no passkey") }
            try await passkeys.verifySecondFactor(answer.credential, challenge: challenge, userId: pending.userId, app: app)
            AuditTrail.event("mfa_passkey")
        case "phone":
            guard let phone = pending.phone else {
                throw ServiceError(.invalidMFACode, "no code was texted for this login: ask for one first")
            }
            guard answer.session == nil || answer.session == phone.session else {
                throw ServiceError(.invalidMFACode, "sessionInfo is not this login's latest text")
            }
            // The factor must still be enrolled: one withdrawn since the text completes nothing.
            guard PhoneCodes.matches(answer.code, digest: phone.digest),
                try await store.secondFactors(userId: pending.userId).phones.contains(where: { $0.enrollmentId == phone.enrollmentId })
            else { throw ServiceError(.invalidMFACode, "wrong texted code") }
            AuditTrail.event("mfa_phone")
        default:
            let isTOTP = type == "totp"
            guard try await check(answer.code, isTOTP: isTOTP, userId: pending.userId, now: now) else {
                throw ServiceError(.invalidMFACode, isTOTP ? "wrong, used or expired TOTP code" : "unknown or used recovery code")
            }
            AuditTrail.event(isTOTP ? "mfa_totp" : "mfa_recovery_code")
        }
        return method
    }

    private static func noun(_ method: String) -> String {
        switch method {
        case AuthenticationMethods.keyPossession: "passkey"
        case AuthenticationMethods.textMessage: "texted code"
        default: "one-time code"
        }
    }

    /// Texts a code to one of the user's phone factors for the login of `token` (the one of
    /// `enrollmentId`, or the only one), and keeps its digest with the login: a later text
    /// replaces it. Answers the text's session (Firebase's `sessionInfo`) and the number.
    /// Whatever goes wrong, the login stays as it was, for its remaining time and attempts.
    func sendPhoneCode(token: String, enrollmentId: String?, app: AppRuntime, address: String) async throws -> (
        session: String, phoneNumber: String
    ) {
        try await abuse.checkRate(.login, app: app, address: address)
        var pending = try await take(token, app: app)
        do {
            guard !pending.proof.provenMethods.contains(AuthenticationMethods.textMessage) else {
                throw ServiceError(
                    .invalidParameter, "the first step of this login was a texted code: complete it with another kind of factor")
            }
            let phones = try await store.secondFactors(userId: pending.userId).phones
            let factor = enrollmentId.map { id in phones.first { $0.enrollmentId == id } } ?? (phones.count == 1 ? phones.first : nil)
            guard let factor else {
                throw ServiceError(
                    .mfaFactorNotFound,
                    enrollmentId == nil && phones.count > 1 ? "this user has several phone factors: name one (enrollmentId)" : "no such phone factor")
            }
            let session = Secrets.randomHex(bytes: 16)
            var digest = ""
            _ = try await self.phones.send(to: factor.phoneNumber, app: app, address: address) { made in
                digest = made
                return session
            }
            pending.phone = PhoneStep(enrollmentId: factor.enrollmentId, digest: digest, session: session)
            try await keep(pending, token: token, app: app.id)
            return (session, factor.phoneNumber)
        } catch {
            try await keep(pending, token: token, app: app.id)
            throw error
        }
    }

    /// The pending login of `token`, taken from the store (``keep(_:token:app:)`` puts it back).
    private func take(_ token: String, app: AppRuntime) async throws -> Pending {
        guard let found = try await store.takeSignIn(id: SealedStates.id(token), kind: .mfa), found.expiresAt > clock.now,
            found.appId == app.id, let content = OAuthFlows.open(found, secret: token), var pending = Self.pending(content)
        else {
            throw ServiceError(.invalidSession, "mfaToken is unknown, used or expired: log in again")
        }
        pending.expires = found.expiresAt
        AuditTrail.user(pending.userId, app: app.id)
        return pending
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

    /// `number` with every digit but its last 4 as `*`, as Firebase shows a factor to a login
    /// that has not finished.
    static func obscured(_ number: String) -> String {
        var shown = 0
        return String(
            number.reversed().map { c -> Character in
                guard c.isASCII, c.isNumber else { return c }
                shown += 1
                return shown > 4 ? "*" : c
            }.reversed())
    }

    private func keep(_ pending: Pending, token: String, app: String) async throws {
        var content: EJSONDocument = [
            "proof": .document(OAuthFlows.document(pending.proof)), "userId": .string(pending.userId),
            "deviceId": .string(pending.deviceId), "failures": .int64(Int64(pending.failures)),
        ]
        if let challenge = pending.challenge { content["challenge"] = .string(challenge) }
        if let phone = pending.phone {
            content["phone"] = ["e": .string(phone.enrollmentId), "d": .string(phone.digest), "s": .string(phone.session)]
        }
        try await store.insertSignIn(OAuthFlows.seal(content, secret: token, app: app, kind: .mfa, expires: pending.expires))
    }

    private static func pending(_ d: EJSONDocument) -> Pending? {
        guard let proof = d["proof"]?.documentValue.flatMap(OAuthFlows.proof), let userId = d["userId"]?.stringValue,
            let deviceId = d["deviceId"]?.stringValue, case .int64(let failures)? = d["failures"]
        else { return nil }
        return Pending(
            proof: proof, userId: userId, deviceId: deviceId, failures: Int(failures), expires: 0,  // the row's
            challenge: d["challenge"]?.stringValue,
            phone: d["phone"]?.documentValue.flatMap { p in
                guard let e = p["e"]?.stringValue, let digest = p["d"]?.stringValue, let s = p["s"]?.stringValue else { return nil }
                return PhoneStep(enrollmentId: e, digest: digest, session: s)
            })
    }
}
