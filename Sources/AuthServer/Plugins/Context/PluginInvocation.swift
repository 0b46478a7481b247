// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging

/// What one plugin call runs for: set while the call runs, read by `context`.
struct PluginInvocation: Sendable {
    /// The function called, for log lines.
    var function: String
    /// The app's configured `values`.
    var values: EJSONDocument
    /// The calling user's id: `context.user` reads the user on first use (most functions never
    /// look, so most calls skip the read).
    var userId: String?
    /// The app's bounds on `context` (``PluginQuota``).
    var quota = PluginQuota()
    /// Mails this call has sent so far.
    var mailsSent = 0
    /// This call's deadline when not the plugins' own (a trigger's).
    var deadline: Duration?
    /// When the call started (`context.http` ends by the call's deadline).
    var started = ContinuousClock.now
    /// Where `context.http` may go (the app's `httpAllowList`).
    var httpAllowList = HTTPAllowList()
    /// Set for a call run as a unit test (``PluginProbe``): what `context` reaches is the
    /// test's, and what it does is recorded instead of done.
    var probe: PluginProbe?
}

/// What `context` reaches, all of it scoped to one app: a plugin state serves one app only,
/// so no call can see another app's users or stored values.
struct PluginServices: Sendable {
    let appId: String
    let store: any UserStore & PluginValueStore
    let mailer: any Mailer
    let clock: ServerClock
    let logger: Logger
    /// The mails' templates (`context.email.send` writes a `plugin` mail).
    var templates = MailTemplates.defaults
    /// Mails per address per hour, for the app's states together (copies share it): in this
    /// process, or in the database every instance shares on PostgreSQL.
    var mailsPerAddress: any RateBuckets = RateLimiter()
    /// The plugins' deadline, when a call has none of its own.
    var timeLimit: Duration = .seconds(1)
}

/// Limits on what plugins hand to `context`.
enum PluginLimits {
    static let storeKeyBytes = 256
    static let storeValueBytes = 64 << 10
    /// How deeply a stored value may nest (reading parses 64 levels; canonical EJSON wraps
    /// numbers in one more).
    static let storeValueDepth = 32
    // Custom data's limits are CustomDataLimits: the same wherever it comes in.
    static let emailBodyBytes = 64 << 10
    static let emailSubjectBytes = 998
    static let logLineBytes = 4096
}
