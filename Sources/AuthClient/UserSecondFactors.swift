// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A TOTP enrolment under way: add `uri` to an authenticator app (or keep `secret` to make
/// codes with ``TOTP``), then confirm it with a code.
public struct TOTPEnrolment: Sendable, Equatable {
    /// The shared secret, base32.
    public var secret: String
    /// The `otpauth://totp/` URI, what a QR code for an authenticator app holds.
    public var uri: String
}

/// A user's second factor, as the server lists it.
public struct SecondFactor: Sendable, Equatable {
    /// `totp`, or `phone` (over Firebase's API).
    public var type: String
    /// False while an enrolment waits for its confirming code.
    public var confirmed: Bool
    /// Unix seconds.
    public var createdAt: Int64
    /// Firebase's `mfaEnrollmentId` (over Firebase's API; nil over App Services').
    public var enrollmentId: String?
    /// A phone factor's number (over Firebase's API).
    public var phoneNumber: String?
}

/// The second factors of a user (`/auth/mfa`, with the access token; over Firebase's API, the
/// v2 API's `mfaEnrollment` and the user's `mfaInfo`). Changing them needs a recent login, and
/// removing one a recent login that used it: `RequiresRecentLogin` otherwise.
public struct UserSecondFactors: Sendable {
    let user: User

    private func request(_ method: String, _ path: String, body: EJSON? = nil) async throws(AuthClientError) -> EJSON {
        try await user.app.request(method, Routes.mfa + path, body: body, auth: .access(userId: user.id))
    }

    /// The user's factors and how many unused recovery codes they hold.
    public func list() async throws(AuthClientError) -> (factors: [SecondFactor], recoveryCodes: Int) {
        if let firebase = user.app.firebase { return (try await listFirebase(firebase), 0) }
        let reply = try await request("GET", "")
        guard let items = reply["factors"]?.arrayValue else { throw user.app.malformed("the factor list has no factors") }
        var factors: [SecondFactor] = []
        for item in items {
            guard let type = item["type"]?.stringValue, let confirmed = item["confirmed"]?.boolValue,
                let created = item["createdAt"]?.integerValue
            else { throw user.app.malformed("a factor lacks type, confirmed or createdAt") }
            factors.append(SecondFactor(type: type, confirmed: confirmed, createdAt: created))
        }
        return (factors, Int(reply["recoveryCodes"]?.integerValue ?? 0))
    }

    /// Starts enrolling TOTP: a fresh secret (replacing an enrolment not confirmed yet).
    public func enrollTOTP() async throws(AuthClientError) -> TOTPEnrolment {
        if let firebase = user.app.firebase { return try await enrollTOTPFirebase(firebase) }
        let reply = try await request("POST", "/totp")
        guard let secret = reply["secret"]?.stringValue, let uri = reply["uri"]?.stringValue else {
            throw user.app.malformed("the enrolment answer lacks secret or uri")
        }
        return TOTPEnrolment(secret: secret, uri: uri)
    }

    /// Confirms the enrolment with the code the authenticator shows now; returns the 10
    /// recovery codes, which the server never shows again.
    public func confirmTOTP(code: String) async throws(AuthClientError) -> [String] {
        if let firebase = user.app.firebase { return try await confirmTOTPFirebase(firebase, code: code) }
        return try codes(try await request("POST", "/totp/confirm", body: ["code": .string(code)]))
    }

    /// Removes TOTP and the recovery codes.
    public func removeTOTP() async throws(AuthClientError) {
        if let firebase = user.app.firebase { return try await removeTOTPFirebase(firebase) }
        _ = try await request("DELETE", "/totp")
    }

    /// New recovery codes, replacing the unused ones.
    public func replaceRecoveryCodes() async throws(AuthClientError) -> [String] {
        try codes(try await request("POST", "/recovery_codes"))
    }

    private func codes(_ reply: EJSON) throws(AuthClientError) -> [String] {
        guard let codes = reply["recoveryCodes"]?.arrayValue?.compactMap(\.stringValue) else {
            throw user.app.malformed("the answer has no recoveryCodes")
        }
        return codes
    }
}

extension User {
    /// This user's second factors.
    public var secondFactors: UserSecondFactors { UserSecondFactors(user: self) }
}
