// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// A user's own second factors (`/auth/mfa`): enrolling TOTP, its recovery codes, and removing
/// it; phone factors (enrolled through Firebase's API, ``FirebaseSecondFactors``). The login
/// side is ``MFALogin``.
///
/// Changing factors needs a recent login (the app's `recentLoginSeconds`, else 10 minutes), so
/// a stolen session cannot enrol a factor of its own and lock the person out; removing one, or
/// making new recovery codes, needs a recent login that used the factor (`amr` holds `mfa`);
/// so does adding a factor for a user who has one, or a stolen session would add its own.
struct SecondFactorService {
    let store: any SecondFactorStore
    let clock: ServerClock
    let sessions: SessionService
    /// Dev mode: TOTP is offered unless the config says otherwise.
    let dev: Bool

    /// `GET /auth/mfa`: `{factors: [{type, confirmed, createdAt}], recoveryCodes}`.
    func list(_ caller: Caller) async throws -> EJSON {
        Self.describe(try await store.secondFactors(userId: caller.userId))
    }

    /// `POST /auth/mfa/totp`: a new secret and its `otpauth://` URI; confirm with a code.
    func startTOTP(_ caller: Caller) async throws -> EJSON {
        if try await store.secondFactors(userId: caller.userId).totp?.confirmedAt != nil {
            throw ServiceError(.mfaFactorExists, "TOTP is enrolled already: remove it first")
        }
        try await requireFactorAddition(caller)
        let app = caller.app
        guard app.config.mfa.offersTOTP(dev: dev) else {
            throw ServiceError(.badRequest, "this app does not offer TOTP (its config's mfa.totp.enabled)")
        }
        let secret = Secrets.randomBytes(20)
        let factor = TOTPFactor(userId: caller.userId, appId: app.id, secret: secret, confirmedAt: nil, lastStep: 0, createdAt: clock.now)
        guard try await store.startTOTPEnrolment(factor) else {
            throw ServiceError(.mfaFactorExists, "TOTP is enrolled already: remove it first")
        }
        let totp = TOTP(secret: secret)
        let user = try await sessions.user(of: caller)
        let account = user.identities.compactMap { $0.email ?? $0.data["email"]?.stringValue }.first ?? user.id
        return [
            "secret": .string(Base32.encode(secret)),
            "uri": .string(totp.uri(issuer: app.config.mfa.totpIssuer ?? app.id, account: account)),
            "algorithm": "SHA1", "digits": .int64(Int64(totp.digits)), "period": .int64(totp.period),
        ]
    }

    /// `POST /auth/mfa/totp/confirm {code}`: enrols the factor; `{recoveryCodes}`, shown once.
    func confirmTOTP(_ caller: Caller, code: String) async throws -> EJSON {
        let code = code.filter { $0 != " " }
        let userId = caller.userId
        let now = clock.now
        guard let factor = try await store.secondFactors(userId: userId).totp, factor.confirmedAt == nil else {
            throw ServiceError(.mfaFactorNotFound, "no TOTP enrolment to confirm: start one (POST auth/mfa/totp)")
        }
        let codes = RecoveryCodes.make()
        guard let step = TOTP(secret: factor.secret).matchingStep(code, at: now), step > factor.lastStep,
            try await store.confirmTOTP(userId: userId, step: step, at: now, recoveryCodes: codes.map(RecoveryCodes.digest))
        else {
            throw ServiceError(.invalidMFACode, "wrong or expired TOTP code: type the code the app shows now", status: 400)
        }
        return ["recoveryCodes": .array(codes.map(EJSON.string))]
    }

    /// `DELETE /auth/mfa/totp`: removes TOTP and the recovery codes.
    func removeTOTP(_ caller: Caller) async throws {
        try await sessions.requireFactorChange(caller, needingSecondFactor: true)
        guard try await store.deleteTOTP(userId: caller.userId) else {
            throw ServiceError(.mfaFactorNotFound, "this user has no TOTP factor")
        }
    }

    /// May the caller add a factor (a phone)? As for TOTP: a recent login, one that used a
    /// second factor if the user has one.
    func requireFactorAddition(_ caller: Caller) async throws {
        try await sessions.requireFactorChange(caller, needingSecondFactor: true)
    }

    /// Enrols a phone factor whose number a texted code proved; false when the user holds it
    /// already. The caller was checked (``requireFactorAddition(_:)``) when the code was sent,
    /// and is again.
    func addPhone(_ caller: Caller, number: String, displayName: String?) async throws -> PhoneFactor? {
        try await requireFactorAddition(caller)
        let factor = PhoneFactor(
            userId: caller.userId, appId: caller.app.id, enrollmentId: Secrets.randomHex(bytes: 14), phoneNumber: number,
            displayName: displayName, enrolledAt: clock.now)
        return try await store.addPhoneFactor(factor) ? factor : nil
    }

    /// Removes a phone factor: as removing TOTP, a recent login that used a second factor.
    func removePhone(_ caller: Caller, enrollmentId: String) async throws {
        try await sessions.requireFactorChange(caller, needingSecondFactor: true)
        guard try await store.deletePhoneFactor(userId: caller.userId, enrollmentId: enrollmentId) else {
            throw ServiceError(.mfaFactorNotFound, "this user has no such phone factor")
        }
    }

    /// `POST /auth/mfa/recovery_codes`: a new set, replacing every unused one.
    func replaceRecoveryCodes(_ caller: Caller) async throws -> EJSON {
        try await sessions.requireFactorChange(caller, needingSecondFactor: true)
        guard try await store.secondFactors(userId: caller.userId).totp?.confirmedAt != nil else {
            throw ServiceError(.mfaFactorNotFound, "recovery codes come with a second factor: enrol TOTP first")
        }
        let codes = RecoveryCodes.make()
        try await store.replaceRecoveryCodes(userId: caller.userId, digests: codes.map(RecoveryCodes.digest))
        return ["recoveryCodes": .array(codes.map(EJSON.string))]
    }

    /// A user's factors as the API shows them (also the admin API's).
    static func describe(_ factors: SecondFactors) -> EJSON {
        var list: [EJSON] = []
        if let t = factors.totp {
            list.append(["type": "totp", "confirmed": .bool(t.confirmedAt != nil), "createdAt": .int64(t.createdAt)])
        }
        for p in factors.phones {
            var d: EJSONDocument = [
                "type": "phone", "id": .string(p.enrollmentId), "phoneNumber": .string(p.phoneNumber), "confirmed": true,
                "createdAt": .int64(p.enrolledAt),
            ]
            if let name = p.displayName { d["displayName"] = .string(name) }
            list.append(.document(d))
        }
        return ["factors": .array(list), "recoveryCodes": .int64(Int64(factors.recoveryCodes))]
    }
}
