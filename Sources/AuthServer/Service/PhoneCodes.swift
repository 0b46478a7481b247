// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Six-digit codes texted to phone numbers: a phone sign-in's, a phone factor's enrolment's
/// and the second step of a login with a phone factor. One path for all three, so every text
/// goes out within the same limits and through the same hook.
///
/// A text goes out through the app's `sendSms` hook within the `sms` rate limit per address
/// and per number; in dev mode it goes to the outbox too (kind `sms`, the emulator's
/// `verificationCodes`). A test number the app lists gets no text: its code is the listed one.
/// The caller keeps only the code's digest (``digest(_:)``), never the code.
struct PhoneCodes: Sendable {
    let hooks: AuthHooks
    let abuse: AbuseControls
    let clock: ServerClock
    /// The dev outbox (dev mode only).
    let outbox: DevOutbox?

    /// How long a code stays good.
    static let lifetime: Int64 = 600
    /// The outbox kind of a text.
    static let outboxKind = "sms"

    /// Why no text went out.
    enum Refusal: Error, Equatable {
        /// The number is not E.164.
        case invalidNumber
        /// The app's `allowedRegions` leave the number out.
        case regionNotAllowed
        /// The app has no `phone` provider (outside dev mode).
        case phoneOff
        /// The app has no `sendSms` hook (outside dev mode).
        case noHook

        /// The refusal as the App Services API words it.
        var serviceError: ServiceError {
            switch self {
            case .invalidNumber: ServiceError(.invalidParameter, "a phone number is + and 7 to 15 digits (E.164)")
            case .regionNotAllowed: ServiceError(.badRequest, "the app's phone.allowedRegions leave this number out")
            case .phoneOff: ServiceError(.badRequest, "this app sends no texts: its config has no phone provider")
            case .noHook: ServiceError(.badRequest, "the app has no sendSms hook: it cannot send text messages")
            }
        }
    }

    /// The app's `phone` configuration: the one it lists, else in dev mode the emulator's
    /// (every app takes phone numbers); nil when phone numbers are off.
    func configuration(of app: AppRuntime) -> AppConfiguration.Phone? {
        app.config.providers.phone ?? (outbox != nil ? AppConfiguration.Phone() : nil)
    }

    /// Texts a new code to `number` (nothing to a test number) and answers the session that
    /// proves it: `session` makes it from the code's digest (the emulator's
    /// `verificationCodes` show it beside the code).
    func send(to number: String, app: AppRuntime, address: String, session: (_ digest: String) throws -> String) async throws
        -> String
    {
        guard let phone = configuration(of: app) else { throw Refusal.phoneOff }
        guard AppConfiguration.Phone.isValid(number) else { throw Refusal.invalidNumber }
        let test = phone.testNumbers[number]
        guard test != nil || phone.allows(number) else { throw Refusal.regionNotAllowed }
        try await abuse.checkRate(.sms, app: app, address: address, account: number)
        let code = test ?? Self.newCode()
        let sessionInfo = try session(Self.digest(code))
        guard test == nil else { return sessionInfo }
        let message = "\(code) is your code for \(app.id)."
        let sent = try await hooks.sendSms(to: number, code: code, message: message, address: address, app: app)
        guard let outbox else {
            guard sent else { throw Refusal.noHook }
            return sessionInfo
        }
        // Dev mode: the text is kept (once the hook, if any, sent it).
        outbox.keep(
            OutboxMessage(
                to: number, subject: "", body: message, kind: Self.outboxKind, token: code, tokenId: "", link: sessionInfo,
                sentAt: clock.now),
            app: app.id)
        return sessionInfo
    }

    /// The digest a code is kept as (hex SHA-256).
    static func digest(_ code: String) -> String { Hex.encode(Secrets.digest(code)) }

    /// Whether `code` is the code of `digest`, in constant time.
    static func matches(_ code: String, digest: String) -> Bool {
        Secrets.constantTimeEqual(Array(Self.digest(code).utf8), Array(digest.utf8))
    }

    /// Six random digits, uniformly.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(UInt32.random(in: 0..<1_000_000, using: &generator))
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
