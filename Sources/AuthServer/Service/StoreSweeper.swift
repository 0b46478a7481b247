// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import Logging
import ServiceLifecycle

/// Deletes what the store keeps only for a while (anonymous users past their lifetime, expired
/// credentials and sign-ins, old failure counts, finished mail, old audit events) at start-up
/// and then every hour, until the server shuts down; the dev API's clock sweeps after it moves.
struct StoreSweeper: Service {
    let store: any UserStore & PendingCredentialStore & SignInStore & BackoffStore & RateLimitStore & MailQueueStore & TriggerRunStore & AuditStore
    let clock: ServerClock
    /// How long audit events are kept, in seconds.
    let auditRetention: Int64
    let logger: Logger
    var interval: Duration = .seconds(3600)

    /// Anonymous users are deleted this long after their login: 90 days.
    static let anonymousLifetime: Int64 = 90 * 86_400

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Deletes anonymous users created more than ``anonymousLifetime`` ago (docs/protocol/wire-protocol.md
    /// section 7: an anonymous account lives 90 days), and what else the store keeps only for
    /// a while: pending credentials a day past their expiry, expired sign-ins, failed-password
    /// counts an hour old, full rate-limit buckets (PostgreSQL's shared ones), delivered or given-up mail a week old, audit events past
    /// `auditRetentionDays`. Runs every hour and after the dev clock moves; each step on its
    /// own, so one that fails (logged, retried at the next sweep) does not hold up the others.
    func sweep() async {
        let now = clock.now
        let steps: [(String, @Sendable () async throws -> Int)] = [
            ("anonymous users", { [store] in try await store.deleteAnonymousUsers(createdBefore: now - Self.anonymousLifetime) }),
            // Kept a day past their expiry, so that a late link is told "expired", not "unknown".
            ("pending credentials", { [store] in try await store.deleteExpiredPendingCredentials(at: now - 86_400) }),
            ("sign-ins", { [store] in try await store.deleteExpiredSignIns(at: now) }),
            ("failed-password counts", { [store] in try await store.deleteLoginFailures(lastBefore: now - LoginBackoff.memory) }),
            ("full rate-limit buckets", { [store] in try await store.deleteFullRateBuckets(at: now * StoredRateLimiter.second) }),
            ("finished mail", { [store] in try await store.deleteFinishedMail(before: now - 7 * 86_400) }),
            ("finished trigger runs", { [store] in try await store.deleteFinishedTriggerRuns(before: now - 7 * 86_400) }),
            ("audit events", { [store, auditRetention] in try await store.deleteAuditEvents(before: now - auditRetention) }),
        ]
        for (what, step) in steps {
            do {
                let deleted = try await step()
                if deleted > 0 { logger.info("swept", metadata: ["step": "\(what)", "count": "\(deleted)"]) }
            } catch {
                logger.error("sweep failed", metadata: ["step": "\(what)", "error": "\(error)"])
            }
        }
    }
}
