// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Glibc
import Lua
import LuaEJSON
import Synchronization

/// Second factors in Lua: the user's TOTP methods, `auth.totp` (a script holds the
/// authenticator), and `credentials.mfa` (the login's second step).
public enum SecondFactorBindings {
    /// Called with each enrolment's `otpauth://` URI before `user:enrollTOTP()` returns (the
    /// REPL draws it as a QR code); set once at start-up.
    public static let showEnrolment = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// The `User` methods.
    static func userMembers() -> [LuaMember<UserObject>] {
        func method(
            _ name: String, _ type: String, _ summary: String,
            _ body: @escaping @Sendable (UserSecondFactors, LuaCall) throws -> @Sendable () async throws -> [LuaValue]
        ) -> LuaMember<UserObject> { UserObject.method(name, type, summary, on: { $0.secondFactors }, body) }
        return [
            method(
                "enrollTOTP", "(): {secret: string, uri: string}",
                "starts enrolling TOTP (a login within the last 10 minutes, or the app's `recentLoginSeconds`): the secret "
                    + "(`auth.totp(secret)` makes its codes) and the `otpauth://` URI an authenticator app reads; confirm with "
                    + "`user:confirmTOTP(code)`. The REPL shows the URI as a QR code."
            ) { factors, _ in
                {
                    let enrolment = try await factors.enrollTOTP()
                    if let show = showEnrolment.withLock({ $0 }) { show(enrolment.uri) }
                    return [.table(LuaTable(["secret": .string(LuaString(enrolment.secret)), "uri": .string(LuaString(enrolment.uri))]))]
                }
            },
            method(
                "confirmTOTP", "(code: string): string[]",
                "confirms the enrolment with a current code; returns the 10 recovery codes (shown only now). From then on a "
                    + "login of this user answers `MFARequired`"
            ) { factors, call in
                let code = try call.string(2)
                return { [codes(try await factors.confirmTOTP(code: code))] }
            },
            method(
                "removeTOTP", "()", "removes TOTP and the recovery codes (a recent login that used the code: `RequiresRecentLogin` otherwise)"
            ) { factors, _ in
                {
                    try await factors.removeTOTP(); return []
                }
            },
            method(
                "secondFactors",
                "(): {factors: {type: string, confirmed: boolean, createdAt: integer, enrollmentId: string?, phoneNumber: string?}[], "
                    + "recoveryCodes: integer}",
                "the user's second factors (over Firebase each with its `enrollmentId`, a phone with its number) and how many "
                    + "unused recovery codes they hold"
            ) { factors, _ in
                {
                    let (list, left) = try await factors.list()
                    let items = list.map { f -> LuaValue in
                        var t = LuaTable([
                            "type": .string(LuaString(f.type)), "confirmed": .boolean(f.confirmed), "createdAt": .integer(f.createdAt),
                        ])
                        if let id = f.enrollmentId { t["enrollmentId"] = .string(LuaString(id)) }
                        if let number = f.phoneNumber { t["phoneNumber"] = .string(LuaString(number)) }
                        return .table(t)
                    }
                    return [.table(LuaTable(["factors": .table(LuaTable(array: items)), "recoveryCodes": .integer(Int64(left))]))]
                }
            },
            method(
                "enrollPhone", "(phoneNumber: string)",
                "Firebase only: starts enrolling a phone (E.164, `+` and digits) as a second factor; a code is texted to it "
                    + "(in dev mode, `outbox{email = phoneNumber}`); confirm with `user:confirmPhone(code)`"
            ) { factors, call in
                let number = try call.string(2)
                return {
                    try await factors.enrollPhone(number); return []
                }
            },
            method(
                "confirmPhone", "(code: string, displayName: string?)",
                "Firebase only: confirms the phone enrolment with the code texted to it"
            ) { factors, call in
                let code = try call.string(2), name = try call.optionalString(3)
                return {
                    try await factors.confirmPhone(code: code, displayName: name); return []
                }
            },
            method(
                "removePhone", "(enrollmentId: string)",
                "Firebase only: removes a phone factor (its `enrollmentId` in `user:secondFactors()`; a recent login that used a "
                    + "second factor)"
            ) { factors, call in
                let id = try call.string(2)
                return {
                    try await factors.removePhone(enrollmentId: id); return []
                }
            },
            method(
                "newRecoveryCodes", "(): string[]", "10 new recovery codes, replacing the unused ones (a recent login that used the code)"
            ) { factors, _ in
                { [codes(try await factors.replaceRecoveryCodes())] }
            },
        ]
    }

    private static func codes(_ list: [String]) -> LuaValue {
        .table(LuaTable(array: list.map { .string(LuaString($0)) }))
    }

    /// `auth.totp(secret [, time])`.
    static let totp = LuaFunction(
        "auth.totp", "(secret: string, time?: integer): string",
        "The TOTP code of a base32 secret (what `user:enrollTOTP()` returns, or an `otpauth://` URI's `secret`) at `time` "
            + "(Unix seconds; default now): RFC 6238, SHA-1, 6 digits, 30 s. Against a dev server whose clock moved, pass "
            + "`auth.dev.advanceClock(0).now`."
    ) { call in
        guard let generator = TOTP(base32: try call.string(1)) else {
            throw LuaArgumentError(index: 1, message: "the secret must be base32 (A-Z, 2-7)")
        }
        let when = try call.optionalInteger(2) ?? Int64(time(nil))
        return .one(.string(LuaString(generator.code(at: when))))
    }

    /// `sendPhoneCode(err [, enrollmentId])` (also `app:sendPhoneCode`): texts the code of a
    /// phone factor for the login that raised `err` (`MFARequired`); returns the number texted,
    /// obscured.
    static func sendPhoneCode(_ app: AppObject, _ call: LuaCall, from index: Int32) throws -> LuaReturn {
        guard let error = try? call.object(index, as: AuthErrorObject.self) else {
            throw call.typeError(index, expected: "the MFARequired error of a login")
        }
        let enrollmentId = try call.optionalString(index + 1)
        let client = try app.app()
        return perform(call) {
            [.string(LuaString(try await client.sendPhoneCode(error.error, enrollmentId: enrollmentId)))]
        }
    }

    static let sendPhoneCodeType = "(err: AuthError, enrollmentId: string?): string"
    static let sendPhoneCodeSummary =
        "Texts the code of a phone factor (the first, or `enrollmentId`) for the login that raised `err` (`MFARequired` with "
        + "`phone` among `err.factors`); returns the number, obscured. `credentials.mfa(err, code)` with the code completes it."

    /// `credentials.mfa(tokenOrError, code)`, or `credentials.mfa(err, authenticator)`.
    static func credential(_ call: LuaCall) throws -> Credentials {
        if let a = try? call.object(2, as: AuthenticatorObject.self) {
            guard let error = try? call.object(1, as: AuthErrorObject.self) else {
                throw LuaArgumentError(index: 1, message: "a passkey step needs the MFARequired error itself (its passkeyOptions)")
            }
            return try Credentials.mfa(error.error, authenticator: a.authenticator)
        }
        let token: String
        if let error = try? call.object(1, as: AuthErrorObject.self) {
            guard let t = error.error.mfaToken else {
                throw LuaArgumentError(index: 1, message: "this error is \(error.error.code), not MFARequired: it has no mfaToken")
            }
            token = t
        } else {
            token = try call.string(1)
        }
        return .mfa(token: token, code: try call.string(2))
    }
}
