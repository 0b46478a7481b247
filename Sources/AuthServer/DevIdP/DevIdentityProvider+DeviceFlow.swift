// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// The dev identity provider's device authorization (RFC 8628): the device endpoint's answer, the person's
/// answer to a user code, and the token endpoint's polls with a device code.
extension DevIdentityProvider {
    // MARK: Device authorization (RFC 8628)

    /// A new device authorization: the answer of the device endpoint.
    func startDevice(_ flavor: Flavor, clientId: String?, scope: String?, verificationURI: String) throws(TokenError) -> EJSON {
        guard clientId == clients[flavor]?.id else { throw TokenError(error: "invalid_client", description: "unknown client") }
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        var rng = SystemRandomNumberGenerator()
        let raw = String((0..<8).map { _ in letters[Int.random(in: 0..<letters.count, using: &rng)] })
        let userCode = String(raw.prefix(4) + "-" + raw.suffix(4))
        let deviceCode = Secrets.randomHex(bytes: 20)
        let grant = Grant(
            flavor: flavor, clientId: clientId ?? "", redirectURI: nil,
            scope: scope ?? (flavor == .oidc ? "openid" : ""), state: nil, nonce: nil, challenge: nil,
            identity: nil, expires: clock.now + Self.deviceLifetime)
        state.withLock { s in
            s.devices = s.devices.filter { $0.value.grant.expires > clock.now }
            s.devices[deviceCode] = Device(grant: grant, userCode: userCode, interval: 5)
        }
        var answer: EJSONDocument = [
            "device_code": .string(deviceCode), "user_code": .string(userCode),
            "verification_uri": .string(verificationURI), "expires_in": .int64(Self.deviceLifetime), "interval": 5,
        ]
        if flavor == .oidc {
            answer["verification_uri_complete"] = .string(verificationURI + "?" + FormEncoding.encode([("user_code", userCode)]))
        }
        return .document(answer)
    }

    /// The person's answer to a device code (the verification page, or `auth.dev.idp.approve`).
    func decideDevice(userCode: String, identity: Identity?) throws(ServiceError) {
        let code = userCode.uppercased().filter { $0.isLetter }
        let checked = try identity.map { i throws(ServiceError) in try remember(i) }
        let found = state.withLock { s -> Bool in
            guard let (key, device) = s.devices.first(where: { $0.value.userCode.filter(\.isLetter) == code }),
                device.grant.expires > clock.now, device.grant.identity == nil, !device.denied
            else { return false }
            if let checked { s.devices[key]?.grant.identity = checked } else { s.devices[key]?.denied = true }
            return true
        }
        guard found else { throw ServiceError(.invalidParameter, "dev IdP: no pending device code \(printable(userCode, limit: 40))") }
    }

    /// One poll of the token endpoint with a device code.
    func pollDevice(_ code: String, clientId: String) throws(TokenError) -> (Grant, Identity) {
        let now = clock.now
        let outcome: Result<(Grant, Identity), TokenError> = state.withLock { s in
            guard var device = s.devices[code], device.grant.clientId == clientId else {
                return .failure(TokenError(error: "invalid_grant", description: "unknown device code"))
            }
            if device.grant.expires <= now {
                s.devices[code] = nil
                return .failure(TokenError(error: "expired_token", description: "the device code expired"))
            }
            if device.denied {
                s.devices[code] = nil
                return .failure(TokenError(error: "access_denied", description: "the person denied the request"))
            }
            if let identity = device.grant.identity {
                s.devices[code] = nil
                return .success((device.grant, identity))
            }
            defer { s.devices[code] = device }
            if let last = device.lastPoll, now - last < device.interval {
                device.interval += 5
                device.lastPoll = now
                return .failure(TokenError(error: "slow_down", description: "polling too fast"))
            }
            device.lastPoll = now
            return .failure(TokenError(error: "authorization_pending", description: "waiting for the person"))
        }
        return try outcome.get()
    }
}
