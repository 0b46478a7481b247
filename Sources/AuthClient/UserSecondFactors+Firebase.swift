// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user's second factors over Firebase Auth's API (``App/firebase``): the user's `mfaInfo`
/// (`accounts:lookup`) and the v2 API's `mfaEnrollment:start|finalize|withdraw` with
/// `totpEnrollmentInfo` (firebase-js-sdk's `TotpMultiFactorGenerator`). Firebase has no
/// recovery codes: a confirmation answers those authsh's server makes, and none from Google's.
extension UserSecondFactors {
    func listFirebase(_ project: FirebaseProject) async throws(AuthClientError) -> [SecondFactor] {
        let reply = try await user.app.firebaseCall(project, "accounts:lookup", [:], as: user.id)
        guard let found = reply["users"]?.arrayValue?.first else { throw user.app.malformed("lookup found no user") }
        return (found["mfaInfo"]?.arrayValue ?? []).map { info in
            SecondFactor(
                type: info["phoneInfo"] != nil ? "phone" : "totp", confirmed: true,
                createdAt: info["enrolledAt"]?.stringValue.flatMap(RFC3339.seconds) ?? 0,
                enrollmentId: info["mfaEnrollmentId"]?.stringValue, phoneNumber: info["phoneInfo"]?.stringValue)
        }
    }

    func enrollTOTPFirebase(_ project: FirebaseProject) async throws(AuthClientError) -> TOTPEnrolment {
        let reply = try await user.app.firebaseCall(project, "v2/accounts/mfaEnrollment:start", ["totpEnrollmentInfo": [:]], as: user.id)
        guard let info = reply["totpSessionInfo"], let secret = info["sharedSecretKey"]?.stringValue,
            let session = info["sessionInfo"]?.stringValue, var totp = TOTP(base32: secret)
        else { throw user.app.malformed("the enrolment answer has no totpSessionInfo with a base32 sharedSecretKey") }
        if let digits = info["verificationCodeLength"]?.integerValue, (6...8).contains(digits) { totp.digits = Int(digits) }
        if let period = info["periodSec"]?.integerValue, (1...300).contains(period) { totp.period = period }
        user.app.firebaseEnrolments.withLock { $0[user.id] = session }
        // As firebase-js-sdk's TotpSecret.generateQrCodeUrl: the project names the entry.
        let account = user.profile.email ?? user.id
        return TOTPEnrolment(secret: secret, uri: totp.uri(issuer: project.projectId, account: account))
    }

    func confirmTOTPFirebase(_ project: FirebaseProject, code: String) async throws(AuthClientError) -> [String] {
        guard let session = user.app.firebaseEnrolments.withLock({ $0[user.id] }) else {
            throw AuthClientError(
                code: "MFAFactorNotFound", message: "no TOTP enrolment of user \(user.id) is under way here: start one with enrollTOTP")
        }
        let reply = try await user.app.firebaseCall(
            project, "v2/accounts/mfaEnrollment:finalize",
            ["totpVerificationInfo": ["sessionInfo": .string(session), "verificationCode": .string(code)], "displayName": "TOTP"],
            as: user.id)
        user.app.firebaseEnrolments.withLock { $0[user.id] = nil }
        try user.keepFirebaseTokens(reply)
        return (reply["recoveryCodes"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    func removeTOTPFirebase(_ project: FirebaseProject) async throws(AuthClientError) {
        guard let totp = try await listFirebase(project).first(where: { $0.type == "totp" }), let enrollment = totp.enrollmentId else {
            throw AuthClientError(code: "MFAFactorNotFound", message: "user \(user.id) has no TOTP factor")
        }
        let reply = try await user.app.firebaseCall(
            project, "v2/accounts/mfaEnrollment:withdraw", ["mfaEnrollmentId": .string(enrollment)], as: user.id)
        try user.keepFirebaseTokens(reply)
    }
}

/// RFC 3339 times as Firebase writes them (`2026-12-07T19:00:00Z`, `...00.123Z`, `+01:00`).
enum RFC3339 {
    /// Unix seconds of `text`, or nil when it is not an RFC 3339 date-time.
    static func seconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var n: Int64 = 0
            for c in b[from..<(from + count)] {
                guard (48...57).contains(c) else { return nil }
                n = n * 10 + Int64(c - 48)
            }
            return n
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var i = 19
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            guard i + 1 == b.count else { return nil }
        } else {
            guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), i + 6 == b.count, b[i + 3] == UInt8(ascii: ":"),
                let h = number(i + 1, 2), let m = number(i + 4, 2)
            else { return nil }
            offset = (h * 60 + m) * 60 * (b[i] == UInt8(ascii: "+") ? 1 : -1)
        }
        // Days from the civil date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second - offset
    }
}
