// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user's own second factors (`/auth/mfa`): enrolling TOTP, its recovery codes, and removing
/// it. The login side is ``MFALogin``.
///
/// Changing factors needs a recent login (the app's `recentLoginSeconds`, else 10 minutes), so
/// a stolen session cannot enrol a factor of its own and lock the person out; removing one, or
/// making new recovery codes, needs a recent login that used the factor (`amr` holds `mfa`).
struct SecondFactorService {
    let store: any AuthStore
    let clock: ServerClock
    let sessions: SessionService
    /// Dev mode: TOTP is offered unless the config says otherwise.
    let dev: Bool

    /// `GET /auth/mfa`: `{factors: [{type, confirmed, createdAt}], recoveryCodes}`.
    func list(token: String) async throws -> EJSON {
        let (_, user, _) = try await sessions.userOfAccessToken(token)
        return Self.describe(try await store.secondFactors(userId: user.id))
    }

    /// `POST /auth/mfa/totp`: a new secret and its `otpauth://` URI; confirm with a code.
    func startTOTP(token: String) async throws -> EJSON {
        let (app, user, _) = try await sessions.factorChanger(token, needingSecondFactor: false)
        guard app.config.mfa.offersTOTP(dev: dev) else {
            throw ServiceError(.badRequest, "this app does not offer TOTP (its config's mfa.totp.enabled)")
        }
        let secret = Secrets.randomBytes(20)
        let factor = TOTPFactor(userId: user.id, appId: app.id, secret: secret, confirmedAt: nil, lastStep: 0, createdAt: clock.now)
        guard try await store.startTOTPEnrolment(factor) else {
            throw ServiceError(.mfaFactorExists, "TOTP is enrolled already: remove it first")
        }
        let totp = TOTP(secret: secret)
        let account = user.identities.compactMap { $0.email ?? $0.data["email"]?.stringValue }.first ?? user.id
        return [
            "secret": .string(Base32.encode(secret)),
            "uri": .string(totp.uri(issuer: app.config.mfa.totpIssuer ?? app.id, account: account)),
            "algorithm": "SHA1", "digits": .int64(Int64(totp.digits)), "period": .int64(totp.period),
        ]
    }

    /// `POST /auth/mfa/totp/confirm {code}`: enrols the factor; `{recoveryCodes}`, shown once.
    func confirmTOTP(token: String, body: RequestBody) async throws -> EJSON {
        let (_, user, _) = try await sessions.userOfAccessToken(token)
        let code = try body.string("code").filter { $0 != " " }
        let now = clock.now
        guard let factor = try await store.secondFactors(userId: user.id).totp, factor.confirmedAt == nil else {
            throw ServiceError(.mfaFactorNotFound, "no TOTP enrolment to confirm: start one (POST auth/mfa/totp)")
        }
        let codes = RecoveryCodes.make()
        guard let step = TOTP(secret: factor.secret).matchingStep(code, at: now), step > factor.lastStep,
            try await store.confirmTOTP(userId: user.id, step: step, at: now, recoveryCodes: codes.map(RecoveryCodes.digest))
        else {
            throw ServiceError(.invalidMFACode, "wrong or expired TOTP code: type the code the app shows now", status: 400)
        }
        return ["recoveryCodes": .array(codes.map(EJSON.string))]
    }

    /// `DELETE /auth/mfa/totp`: removes TOTP and the recovery codes.
    func removeTOTP(token: String) async throws {
        let (_, user, _) = try await sessions.factorChanger(token, needingSecondFactor: true)
        guard try await store.deleteTOTP(userId: user.id) else {
            throw ServiceError(.mfaFactorNotFound, "this user has no TOTP factor")
        }
    }

    /// `POST /auth/mfa/recovery_codes`: a new set, replacing every unused one.
    func replaceRecoveryCodes(token: String) async throws -> EJSON {
        let (_, user, _) = try await sessions.factorChanger(token, needingSecondFactor: true)
        guard try await store.secondFactors(userId: user.id).totp?.confirmedAt != nil else {
            throw ServiceError(.mfaFactorNotFound, "recovery codes come with a second factor: enrol TOTP first")
        }
        let codes = RecoveryCodes.make()
        try await store.replaceRecoveryCodes(userId: user.id, digests: codes.map(RecoveryCodes.digest))
        return ["recoveryCodes": .array(codes.map(EJSON.string))]
    }

    /// A user's factors as the API shows them (also the admin API's).
    static func describe(_ factors: SecondFactors) -> EJSON {
        var list: [EJSON] = []
        if let t = factors.totp {
            list.append(["type": "totp", "confirmed": .bool(t.confirmedAt != nil), "createdAt": .int64(t.createdAt)])
        }
        return ["factors": .array(list), "recoveryCodes": .int64(Int64(factors.recoveryCodes))]
    }
}
