// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Passkeys (WebAuthn Level 2): a logged-in user registers them; anyone logs in with one,
/// with no user name (discoverable credentials), or uses one as a second factor
/// (docs/server/passkeys.md). The checks of each ceremony are ``PasskeyCeremony``'s; this type
/// keeps the challenges and the credentials.
///
/// Each challenge is what it is for (a login; a registration and its user), sealed under the
/// server's key (``SealedStates``, kind `passkey`, 5 minutes): unpredictable, and stored
/// nowhere when it is handed out. The answer's `clientDataJSON` names it, and it is spent
/// once, so a replayed answer is refused.
struct PasskeyService: Sendable {
    let store: any PasskeyStore
    /// Seals the challenges.
    let states: SealedStates
    let clock: ServerClock
    let sessions: SessionService
    let abuse: AbuseControls
    /// Dev mode: passkeys for `localhost` without config.
    let dev: Bool

    static let provider = "passkey"
    static let challengeLifetime: Int64 = 300
    /// Passkeys one user may hold.
    static let perUser = 20
    static let algorithms = COSEKey.Algorithm.allCases.map(\.rawValue)

    /// The app's passkey config, or 404 when it has none.
    func config(_ app: AppRuntime) throws(ServiceError) -> WebAuthnConfiguration {
        guard let config = app.webauthn(dev: dev) else {
            throw ServiceError(.authProviderNotFound, "this app has no passkeys (config webauthn)")
        }
        return config
    }

    // MARK: registration

    /// `POST /auth/passkeys/options`: the options of `navigator.credentials.create`, for a
    /// recent login; one that used the second factor when the user has one (else a session
    /// from before TOTP could add a passkey that logs in without the code).
    func registrationOptions(_ caller: Caller) async throws -> EJSON {
        try await sessions.requireFactorChange(caller, needingSecondFactor: true)
        let (app, user) = (caller.app, try await sessions.user(of: caller))
        let config = try config(app)
        let existing = try await store.passkeys(userId: user.id)
        guard existing.count < Self.perUser else {
            throw ServiceError(.invalidParameter, "a user holds at most \(Self.perUser) passkeys: remove one first")
        }
        let challenge = try newChallenge(["purpose": "register", "userId": .string(user.id)], app: app)
        let name = user.identities.compactMap { $0.email ?? $0.data["email"]?.stringValue }.first ?? user.id
        let options: EJSONDocument = [
            "rp": ["id": .string(config.rpId), "name": .string(config.rpName ?? app.id)],
            "user": ["id": .string(Self.userHandle(user.id)), "name": .string(name), "displayName": .string(name)],
            "challenge": .string(challenge),
            "pubKeyCredParams": .array(Self.algorithms.map { ["type": "public-key", "alg": .int64($0)] }),
            "timeout": .int64(Self.challengeLifetime * 1000),
            "excludeCredentials": .array(existing.map(Self.descriptor)),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true, "userVerification": .string(config.userVerification.rawValue),
            ],
            "attestation": "none",
        ]
        return ["publicKey": .document(options)]
    }

    /// `POST /auth/passkeys {credential, name?}`: verifies the registration (`credential`, the
    /// authenticator's answer as the browser gives it) and keeps the passkey.
    func register(_ caller: Caller, credential: EJSON?, name: String?) async throws -> EJSON {
        let app = caller.app
        let config = try config(app)
        let name = name ?? "passkey"
        guard (1...100).contains(name.count) else { throw ServiceError(.invalidParameter, "name must be 1 to 100 characters") }
        let response = try PasskeyCeremony.response(credential)
        let purpose = try await takeChallenge(response.clientData.challenge, app: app)
        guard purpose["purpose"] == "register", purpose["userId"]?.stringValue == caller.userId else {
            throw PasskeyCeremony.refused("this challenge was not issued for this user's registration")
        }
        let registered = try PasskeyCeremony.verifyRegistration(response, challenge: response.clientData.challenge, config: config)
        let record = PasskeyRecord(
            appId: app.id, id: registered.id, userId: caller.userId, name: name, publicKey: registered.publicKey,
            algorithm: registered.algorithm.rawValue, signCount: Int64(registered.signCount), aaguid: registered.aaguid,
            transports: registered.transports, backupEligible: registered.backupEligible, createdAt: clock.now, lastUsedAt: nil)
        let added: Bool
        do {
            added = try await store.insertPasskey(record, limit: Self.perUser)
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError(.mfaFactorExists, "this passkey is registered already")
        }
        guard added else { throw ServiceError(.invalidParameter, "a user holds at most \(Self.perUser) passkeys: remove one first") }
        return Self.describe(record)
    }

    // MARK: management

    func list(_ caller: Caller) async throws -> EJSON {
        .array(try await store.passkeys(userId: caller.userId).map(Self.describe))
    }

    func rename(_ caller: Caller, id: String, name: String) async throws -> EJSON {
        guard (1...100).contains(name.count) else { throw ServiceError(.invalidParameter, "name must be 1 to 100 characters") }
        guard try await store.renamePasskey(app: caller.app.id, id: id, userId: caller.userId, name: name) else { throw Self.notFound }
        return ["id": .string(id), "name": .string(name)]
    }

    /// Removes a passkey (a recent login, one that used the second factor when the user has
    /// one); the sessions it opened end with it.
    func remove(_ caller: Caller, id: String) async throws {
        try await sessions.requireFactorChange(caller, needingSecondFactor: true)
        guard try await store.deletePasskey(app: caller.app.id, id: id, userId: caller.userId) else { throw Self.notFound }
    }

    static let notFound = ServiceError(.mfaFactorNotFound, "this user has no passkey with that id")

    // MARK: login

    /// `POST {app}/auth/providers/passkey/options`: the options of `navigator.credentials.get`
    /// for a login with no user name (any of the app's passkeys the authenticator holds).
    func loginOptions(app: AppRuntime, address: String) async throws -> EJSON {
        let config = try config(app)
        try await abuse.checkRate(.login, app: app, address: address)
        let challenge = try newChallenge(["purpose": "login"], app: app)
        return ["publicKey": .document(Self.requestOptions(challenge: challenge, config: config, allow: []))]
    }

    /// The proof of a passkey login (`{credential}`): the user who holds the passkey. A login
    /// whose authenticator verified the user is two factors, and asks for no other.
    func verifyLogin(_ body: InputFields, app: AppRuntime) async throws -> LoginService.Proof {
        let config = try config(app)
        let response = try PasskeyCeremony.response(body.document["credential"])
        let purpose = try await takeChallenge(response.clientData.challenge, app: app)
        guard purpose["purpose"] == "login" else { throw PasskeyCeremony.refused("this challenge was not issued for a login") }
        let (passkey, asserted) = try await verify(response, challenge: response.clientData.challenge, app: app, config: config)
        var proof = LoginService.Proof(
            identity: IdentityRecord(
                externalId: passkey.id, providerType: Self.provider, providerId: app.providerId(Self.provider), data: [:]),
            owner: passkey.userId)
        proof.methods = [AuthenticationMethods.keyPossession] + (asserted.userVerified ? [AuthenticationMethods.multipleFactors] : [])
        proof.skipsSecondFactor = asserted.userVerified
        return proof
    }

    // MARK: second factor

    /// A challenge for a second step with one of `userId`'s passkeys: its options (for the
    /// `MFARequired` answer) and the challenge (kept with the pending login).
    func secondFactorOptions(userId: String, app: AppRuntime) async throws -> (options: EJSON, challenge: String)? {
        guard let config = app.webauthn(dev: dev) else { return nil }
        let passkeys = try await store.passkeys(userId: userId)
        guard !passkeys.isEmpty else { return nil }
        let challenge = Base64.encode(Secrets.randomBytes(32), urlSafe: true)
        return (.document(Self.requestOptions(challenge: challenge, config: config, allow: passkeys)), challenge)
    }

    /// Checks a second step's assertion against the pending login's challenge: a passkey of
    /// `userId`'s. Throws `InvalidMFACode` for one that is not.
    func verifySecondFactor(_ credential: EJSON?, challenge: String, userId: String, app: AppRuntime) async throws {
        let config = try config(app)
        let response = try PasskeyCeremony.response(credential)
        let (passkey, _) = try await verify(response, challenge: challenge, app: app, config: config)
        guard passkey.userId == userId else {
            throw ServiceError(.invalidMFACode, "this passkey is not one of this user's")
        }
    }

    // MARK: the pieces

    /// The assertion's checks with the stored passkey it names, and its counter.
    private func verify(_ response: PasskeyCeremony.Response, challenge: String, app: AppRuntime, config: WebAuthnConfiguration)
        async throws -> (PasskeyRecord, PasskeyCeremony.Asserted)
    {
        guard let passkey = try await store.passkey(app: app.id, id: response.id) else {
            throw ServiceError(.authError, "passkey: no passkey of this app has that id (removed, or registered elsewhere)")
        }
        if let handle = response.fields["userHandle"]?.stringValue, !handle.isEmpty, handle != Self.userHandle(passkey.userId) {
            throw ServiceError(.authError, "passkey: the user handle is not the passkey's user")
        }
        let asserted = try PasskeyCeremony.verifyAssertion(response, challenge: challenge, config: config, publicKey: passkey.publicKey)
        guard try await store.usePasskey(app: app.id, id: passkey.id, signCount: Int64(asserted.signCount), at: clock.now) else {
            throw ServiceError(
                .authError,
                "passkey: the signature counter did not grow (\(asserted.signCount) after \(passkey.signCount)): "
                    + "the authenticator may have been cloned")
        }
        return (passkey, asserted)
    }

    private func newChallenge(_ content: EJSONDocument, app: AppRuntime) throws -> String {
        try states.seal(content, kind: .passkey, app: app.id, expires: clock.now + Self.challengeLifetime)
    }

    /// What a challenge was issued for, spent: taken once.
    private func takeChallenge(_ challenge: String, app: AppRuntime) async throws -> EJSONDocument {
        guard let (issuer, content) = try await states.take(challenge, kind: .passkey, now: clock.now), issuer == app.id else {
            throw PasskeyCeremony.refused("the challenge is unknown, used or expired: ask for new options")
        }
        return content
    }

    static func requestOptions(challenge: String, config: WebAuthnConfiguration, allow: [PasskeyRecord]) -> EJSONDocument {
        [
            "challenge": .string(challenge), "rpId": .string(config.rpId),
            "userVerification": .string(config.userVerification.rawValue), "allowCredentials": .array(allow.map(descriptor)),
        ]
    }

    static func descriptor(_ p: PasskeyRecord) -> EJSON {
        var d: EJSONDocument = ["type": "public-key", "id": .string(p.id)]
        if !p.transports.isEmpty { d["transports"] = .array(p.transports.map(EJSON.string)) }
        return .document(d)
    }

    /// The WebAuthn user handle of a user: their id's bytes, base64url.
    static func userHandle(_ userId: String) -> String {
        Base64.encode(ObjectId(hex: userId).map(\.bytes) ?? Array(userId.utf8), urlSafe: true)
    }

    static func describe(_ p: PasskeyRecord) -> EJSON {
        [
            "id": .string(p.id), "name": .string(p.name), "createdAt": .int64(p.createdAt),
            "lastUsedAt": p.lastUsedAt.map(EJSON.int64) ?? .null, "algorithm": .int64(p.algorithm),
            "backupEligible": .bool(p.backupEligible),
        ]
    }
}
