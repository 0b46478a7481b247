// SPDX-License-Identifier: Apache-2.0
/// The schema of the PostgreSQL engine, as numbered migrations (never edit a shipped one; add
/// one, and the same change to ``SQLiteSchema``). The tables and columns are SQLite's, in
/// PostgreSQL's types.
package enum PostgresSchema {
    /// The advisory lock two instances starting at once take around migrating.
    package static let migrationLock: Int64 = 0x6175_7468_7368_0001  // "authsh" 1

    package static let migrations: [(version: String, sql: [String])] = [
        (
            "v3",
            [
                """
                CREATE TABLE signing_keys (
                    app_id TEXT NOT NULL, algorithm TEXT NOT NULL, material BYTEA NOT NULL,
                    PRIMARY KEY (app_id, algorithm))
                """,
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL, type TEXT NOT NULL,
                    data TEXT NOT NULL, custom_data TEXT, disabled BOOLEAN NOT NULL DEFAULT false,
                    created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX users_app ON users(app_id)",
                """
                CREATE TABLE identities (
                    app_id TEXT NOT NULL, provider_type TEXT NOT NULL, external_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    provider_id TEXT NOT NULL, data TEXT NOT NULL, position INTEGER NOT NULL, email TEXT,
                    PRIMARY KEY (app_id, provider_type, external_id))
                """,
                "CREATE INDEX identities_user ON identities(user_id, position)",
                "CREATE INDEX identities_email ON identities(app_id, email) WHERE email IS NOT NULL",
                """
                CREATE TABLE userpass_accounts (
                    app_id TEXT NOT NULL, email TEXT NOT NULL, password_hash TEXT NOT NULL,
                    identity_id TEXT NOT NULL, confirmed BOOLEAN NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (app_id, email))
                """,
                "CREATE INDEX userpass_accounts_email ON userpass_accounts(app_id, lower(email))",
                """
                CREATE TABLE one_time_tokens (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL, kind TEXT NOT NULL, email TEXT NOT NULL,
                    digest BYTEA NOT NULL, expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX one_time_tokens_email ON one_time_tokens(app_id, kind, email)",
                """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    device_id TEXT NOT NULL, provider_type TEXT NOT NULL, identity_id TEXT NOT NULL,
                    refresh_digest BYTEA NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT, last_used BIGINT)
                """,
                "CREATE INDEX sessions_user ON sessions(user_id)",
                """
                CREATE TABLE api_keys (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL, digest BYTEA NOT NULL UNIQUE, disabled BOOLEAN NOT NULL,
                    created_at BIGINT NOT NULL, seq BIGINT NOT NULL,
                    UNIQUE (user_id, name))
                """,
                """
                CREATE TABLE plugin_values (
                    app_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
                    PRIMARY KEY (app_id, key))
                """,
                """
                CREATE TABLE pending_credentials (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL, digest BYTEA NOT NULL, email TEXT NOT NULL,
                    provider_type TEXT NOT NULL, external_id TEXT NOT NULL, provider_id TEXT NOT NULL,
                    data TEXT NOT NULL, expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX pending_credentials_expiry ON pending_credentials(expires_at)",
            ]
        ),
        (
            "v4",
            [
                """
                CREATE TABLE sign_ins (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL, kind TEXT NOT NULL, sealed BYTEA NOT NULL,
                    expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX sign_ins_app ON sign_ins(app_id, kind, expires_at)",
                "CREATE INDEX sign_ins_expiry ON sign_ins(expires_at)",
                """
                CREATE TABLE login_failures (
                    key TEXT PRIMARY KEY, failures BIGINT NOT NULL, wait_until BIGINT NOT NULL,
                    last_failure BIGINT NOT NULL)
                """,
                "CREATE INDEX login_failures_last ON login_failures(last_failure)",
            ]
        ),
        (
            "v5",
            [
                """
                CREATE TABLE mail_queue (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL, kind TEXT NOT NULL, recipient TEXT NOT NULL,
                    content TEXT NOT NULL, message_id TEXT NOT NULL, created_at BIGINT NOT NULL,
                    next_attempt BIGINT NOT NULL, attempts BIGINT NOT NULL, state TEXT NOT NULL,
                    last_error TEXT, lease_until BIGINT NOT NULL, finished_at BIGINT)
                """,
                "CREATE INDEX mail_queue_due ON mail_queue(state, next_attempt)",
            ]
        ),
        (
            "v6",
            [
                """
                CREATE TABLE audit_events (
                    id BIGSERIAL PRIMARY KEY, time BIGINT NOT NULL, app_id TEXT NOT NULL, event TEXT NOT NULL,
                    outcome TEXT NOT NULL, user_id TEXT, provider TEXT, address TEXT, user_agent TEXT, detail TEXT)
                """,
                "CREATE INDEX audit_events_time ON audit_events(time)",
                "CREATE INDEX audit_events_user ON audit_events(user_id, id) WHERE user_id IS NOT NULL",
            ]
        ),
        (
            "v7",
            [
                "ALTER TABLE users ADD COLUMN last_login_at BIGINT",
                "CREATE INDEX users_app_id ON users(app_id, id)",
                "ALTER TABLE audit_events ADD COLUMN actor TEXT",
                "CREATE INDEX userpass_accounts_identity ON userpass_accounts(app_id, identity_id)",
            ]
        ),
        (
            "v8",
            [
                """
                CREATE TABLE trigger_runs (
                    id TEXT PRIMARY KEY, app_id TEXT NOT NULL, trigger_name TEXT NOT NULL, function_name TEXT NOT NULL,
                    operation TEXT NOT NULL, event TEXT NOT NULL, created_at BIGINT NOT NULL, next_attempt BIGINT NOT NULL,
                    attempts BIGINT NOT NULL, state TEXT NOT NULL, last_error TEXT, lease_until BIGINT NOT NULL,
                    finished_at BIGINT)
                """,
                "CREATE INDEX trigger_runs_due ON trigger_runs(state, next_attempt)",
                "CREATE INDEX trigger_runs_app ON trigger_runs(app_id, created_at)",
            ]
        ),
        (
            "v9",
            [
                """
                CREATE TABLE totp_factors (
                    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, app_id TEXT NOT NULL,
                    secret BYTEA NOT NULL, confirmed_at BIGINT, last_step BIGINT NOT NULL, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE recovery_codes (
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, digest BYTEA NOT NULL,
                    PRIMARY KEY (user_id, digest))
                """,
            ]
        ),
        (
            "v10",
            [
                """
                CREATE TABLE passkeys (
                    app_id TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL, public_key BYTEA NOT NULL, algorithm BIGINT NOT NULL, sign_count BIGINT NOT NULL,
                    aaguid BYTEA NOT NULL, transports TEXT NOT NULL, backup_eligible BOOLEAN NOT NULL, created_at BIGINT NOT NULL,
                    last_used_at BIGINT, PRIMARY KEY (app_id, id))
                """,
                "CREATE INDEX passkeys_user ON passkeys(user_id, created_at)",
            ]
        ),
        (
            "v11",
            [
                // Unlogged: a check writes no WAL and waits for no flush; a crash forgets the
                // counts (every bucket full again), which a rate limit can afford.
                "CREATE UNLOGGED TABLE rate_limits (key TEXT PRIMARY KEY, tat BIGINT NOT NULL, refused SMALLINT NOT NULL)",
                "CREATE INDEX rate_limits_tat ON rate_limits(tat)",
            ]
        ),
        (
            "v12",
            [
                // Firebase's sign-up makes an account that logs in before its email is proven.
                "ALTER TABLE userpass_accounts ADD COLUMN email_verified BOOLEAN NOT NULL DEFAULT TRUE"
            ]
        ),
        (
            "v13",
            [
                // Firebase's validSince: the user's tokens from before it are revoked.
                "ALTER TABLE users ADD COLUMN valid_since BIGINT",
                // How a session's login proved the person, for the APIs whose tokens do not say.
                "ALTER TABLE sessions ADD COLUMN amr TEXT",
            ]
        ),
        (
            "v14",
            [
                // A token that moves an account to another email holds that email.
                "ALTER TABLE one_time_tokens ADD COLUMN new_email TEXT",
                // The claims a session's login gave its tokens (a Firebase custom token's).
                "ALTER TABLE sessions ADD COLUMN claims TEXT",
            ]
        ),
        (
            "v15",
            [
                // Phone numbers as second factors (Firebase's phone MFA).
                """
                CREATE TABLE phone_factors (
                    enrollment_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    app_id TEXT NOT NULL, phone_number TEXT NOT NULL, display_name TEXT, enrolled_at BIGINT NOT NULL,
                    UNIQUE (user_id, phone_number))
                """
            ]
        ),
    ]

    private static let lock: SQL = "SELECT pg_advisory_xact_lock(?) AS locked"
    private static let bookkeeping: SQL = """
        CREATE TABLE IF NOT EXISTS authsh_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
        """
    private static let applied: SQL = "SELECT version FROM authsh_migrations"
    private static let record: SQL = "INSERT INTO authsh_migrations (version) VALUES (?)"

    /// Applies the migrations not applied yet, in one transaction under the advisory lock
    /// (a second instance waits, then finds them applied).
    package static func migrate(_ engine: PostgresEngine, deadline: Duration) async throws {
        try await engine.write("migrate", deadline: deadline) { r in
            try await r.run(lock, [.integer(migrationLock)])
            try await r.run(bookkeeping, [])
            let done = Set(try await r.all(applied, []) { try $0.text("version") })
            for (version, statements) in migrations where !done.contains(version) {
                for statement in statements { try await r.run(SQL(statement, prepared: false), []) }
                try await r.run(record, [.text(version)])
            }
        }
    }
}
