// SPDX-License-Identifier: Apache-2.0
/// The schema of the SQLite engine, as numbered migrations (never edit a shipped one; add one,
/// and the same change to ``PostgresSchema``).
///
/// Applied versions are recorded in `grdb_migrations`, under the identifiers below: the table
/// and names GRDB's migrator used when it ran them, so databases made by earlier releases
/// carry on where they were.
package enum SQLiteSchema {
    package static let migrations: [(version: String, sql: String)] = [
        (
            "v1",
            """
            CREATE TABLE signing_keys (
                app_id TEXT NOT NULL, algorithm TEXT NOT NULL, material BLOB NOT NULL,
                PRIMARY KEY (app_id, algorithm));
            CREATE TABLE users (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, type TEXT NOT NULL,
                data TEXT NOT NULL, custom_data TEXT, disabled INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL);
            CREATE INDEX users_app ON users(app_id);
            CREATE TABLE identities (
                app_id TEXT NOT NULL, provider_type TEXT NOT NULL, external_id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                provider_id TEXT NOT NULL, data TEXT NOT NULL, position INTEGER NOT NULL,
                PRIMARY KEY (app_id, provider_type, external_id));
            CREATE INDEX identities_user ON identities(user_id, position);
            CREATE TABLE userpass_accounts (
                app_id TEXT NOT NULL, email TEXT NOT NULL, password_hash TEXT NOT NULL,
                identity_id TEXT NOT NULL, confirmed INTEGER NOT NULL, created_at INTEGER NOT NULL,
                PRIMARY KEY (app_id, email));
            CREATE TABLE one_time_tokens (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, kind TEXT NOT NULL, email TEXT NOT NULL,
                digest BLOB NOT NULL, expires_at INTEGER NOT NULL);
            CREATE INDEX one_time_tokens_email ON one_time_tokens(app_id, kind, email);
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL, provider_type TEXT NOT NULL, identity_id TEXT NOT NULL,
                refresh_digest BLOB NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER);
            CREATE INDEX sessions_user ON sessions(user_id);
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL, digest BLOB NOT NULL UNIQUE, disabled INTEGER NOT NULL,
                created_at INTEGER NOT NULL, seq INTEGER NOT NULL,
                UNIQUE (user_id, name));
            """
        ),
        (
            "v2: plugin values",
            """
            CREATE TABLE plugin_values (
                app_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
                PRIMARY KEY (app_id, key));
            """
        ),
        // `identities.email`: the verified email an identity vouches for, lowercased (null
        // when none). Email/password identities vouch for their account's email (a login
        // needs a confirmed account); other providers' are filled in at their next login.
        (
            "v3: verified emails, pending credentials, session use",
            """
            ALTER TABLE identities ADD COLUMN email TEXT;
            UPDATE identities SET email = lower(json_extract(data, '$.email'))
                WHERE provider_type = 'local-userpass' AND json_valid(data);
            CREATE INDEX identities_email ON identities(app_id, email) WHERE email IS NOT NULL;
            CREATE INDEX userpass_accounts_email ON userpass_accounts(app_id, lower(email));
            ALTER TABLE sessions ADD COLUMN last_used INTEGER;
            CREATE TABLE pending_credentials (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, digest BLOB NOT NULL, email TEXT NOT NULL,
                provider_type TEXT NOT NULL, external_id TEXT NOT NULL, provider_id TEXT NOT NULL,
                data TEXT NOT NULL, expires_at INTEGER NOT NULL);
            CREATE INDEX pending_credentials_expiry ON pending_credentials(expires_at);
            """
        ),
        // Shared by every process on the database: sign-ins under way and failed-password
        // counts (in each process's memory before).
        (
            "v4: sign-ins and login failures",
            """
            CREATE TABLE sign_ins (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, kind TEXT NOT NULL, sealed BLOB NOT NULL,
                expires_at INTEGER NOT NULL);
            CREATE INDEX sign_ins_app ON sign_ins(app_id, kind, expires_at);
            CREATE INDEX sign_ins_expiry ON sign_ins(expires_at);
            CREATE TABLE login_failures (
                key TEXT PRIMARY KEY, failures INTEGER NOT NULL, wait_until INTEGER NOT NULL,
                last_failure INTEGER NOT NULL);
            CREATE INDEX login_failures_last ON login_failures(last_failure);
            """
        ),
        (
            "v5: mail queue",
            """
            CREATE TABLE mail_queue (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, kind TEXT NOT NULL, recipient TEXT NOT NULL,
                content TEXT NOT NULL, message_id TEXT NOT NULL, created_at INTEGER NOT NULL,
                next_attempt INTEGER NOT NULL, attempts INTEGER NOT NULL, state TEXT NOT NULL,
                last_error TEXT, lease_until INTEGER NOT NULL, finished_at INTEGER);
            CREATE INDEX mail_queue_due ON mail_queue(state, next_attempt);
            """
        ),
        (
            "v6: audit log",
            """
            CREATE TABLE audit_events (
                id INTEGER PRIMARY KEY, time INTEGER NOT NULL, app_id TEXT NOT NULL, event TEXT NOT NULL,
                outcome TEXT NOT NULL, user_id TEXT, provider TEXT, address TEXT, user_agent TEXT, detail TEXT);
            CREATE INDEX audit_events_time ON audit_events(time);
            CREATE INDEX audit_events_user ON audit_events(user_id, id) WHERE user_id IS NOT NULL;
            """
        ),
        (
            "v7: administration",
            """
            ALTER TABLE users ADD COLUMN last_login_at INTEGER;
            CREATE INDEX users_app_id ON users(app_id, id);
            ALTER TABLE audit_events ADD COLUMN actor TEXT;
            CREATE INDEX userpass_accounts_identity ON userpass_accounts(app_id, identity_id);
            """
        ),
        (
            "v8: trigger runs",
            """
            CREATE TABLE trigger_runs (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, trigger_name TEXT NOT NULL, function_name TEXT NOT NULL,
                operation TEXT NOT NULL, event TEXT NOT NULL, created_at INTEGER NOT NULL, next_attempt INTEGER NOT NULL,
                attempts INTEGER NOT NULL, state TEXT NOT NULL, last_error TEXT, lease_until INTEGER NOT NULL,
                finished_at INTEGER);
            CREATE INDEX trigger_runs_due ON trigger_runs(state, next_attempt);
            CREATE INDEX trigger_runs_app ON trigger_runs(app_id, created_at);
            """
        ),
        // Second factors: a user's TOTP factor (one at most) and the digests of their recovery codes.
        (
            "v9: second factors",
            """
            CREATE TABLE totp_factors (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, app_id TEXT NOT NULL,
                secret BLOB NOT NULL, confirmed_at INTEGER, last_step INTEGER NOT NULL, created_at INTEGER NOT NULL);
            CREATE TABLE recovery_codes (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, digest BLOB NOT NULL,
                PRIMARY KEY (user_id, digest));
            """
        ),
        // Passkeys: WebAuthn credentials, by app and credential id (base64url).
        (
            "v10: passkeys",
            """
            CREATE TABLE passkeys (
                app_id TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL, public_key BLOB NOT NULL, algorithm INTEGER NOT NULL, sign_count INTEGER NOT NULL,
                aaguid BLOB NOT NULL, transports TEXT NOT NULL, backup_eligible INTEGER NOT NULL, created_at INTEGER NOT NULL,
                last_used_at INTEGER, PRIMARY KEY (app_id, id));
            CREATE INDEX passkeys_user ON passkeys(user_id, created_at);
            """
        ),
        (
            "v11: rate limits",
            """
            CREATE TABLE rate_limits (key TEXT PRIMARY KEY, tat INTEGER NOT NULL, refused INTEGER NOT NULL);
            CREATE INDEX rate_limits_tat ON rate_limits(tat);
            """
        ),
        (
            "v12: unverified emails",
            """
            ALTER TABLE userpass_accounts ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 1;
            """
        ),
        (
            "v13: tokens valid since, session methods",
            """
            ALTER TABLE users ADD COLUMN valid_since INTEGER;
            ALTER TABLE sessions ADD COLUMN amr TEXT;
            """
        ),
        (
            "v14: email changes, session claims",
            """
            ALTER TABLE one_time_tokens ADD COLUMN new_email TEXT;
            ALTER TABLE sessions ADD COLUMN claims TEXT;
            """
        ),
        // Phone numbers as second factors (Firebase's phone MFA).
        (
            "v15: phone factors",
            """
            CREATE TABLE phone_factors (
                enrollment_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                app_id TEXT NOT NULL, phone_number TEXT NOT NULL, display_name TEXT, enrolled_at INTEGER NOT NULL,
                UNIQUE (user_id, phone_number));
            """
        ),
    ]

    private static let applied: SQL = "SELECT identifier FROM grdb_migrations"
    private static let record: SQL = "INSERT INTO grdb_migrations (identifier) VALUES (?)"

    /// Applies the migrations not applied yet (up to and including `last`, when given), in one
    /// write transaction: a second process opening the database at once waits, then finds
    /// them applied.
    package static func migrate(_ connection: SQLiteConnection, upTo last: String? = nil) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try connection.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            var done = Set<String>()
            try connection.step(applied, []) { done.insert(try $0.text("identifier")) }
            for (version, sql) in migrations {
                if !done.contains(version) {
                    try connection.execute(sql)
                    try connection.step(record, [.text(version)]) { _ in }
                }
                if version == last { break }
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Why a file is not an authsh database this binary can open (``verify(_:)``).
    package struct Mismatch: Error, CustomStringConvertible {
        package let description: String

        /// The memberwise initialiser, for the whole package.
        package init(description: String) {
            self.description = description
        }
    }

    private static let objects: SQL = "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'index')"
    private static let columns: SQL = "SELECT name FROM pragma_table_info(?)"

    /// Checks that `connection` holds an authsh database this binary can open, reading only:
    /// its applied migrations are the first ones of ``migrations`` (none this binary does not
    /// know, as a newer authsh's would be), and every table, column and index they make is
    /// there (a database they describe, not a file that only has their table). Returns the
    /// last migration applied.
    @discardableResult
    package static func verify(_ connection: SQLiteConnection) throws -> String {
        var done: [String] = []
        do { try connection.step(applied, []) { done.append(try $0.text("identifier")) } } catch {
            throw Mismatch(description: "it has no grdb_migrations table (authsh's record of its schema)")
        }
        let known = migrations.map(\.version)
        if let unknown = done.first(where: { !known.contains($0) }) {
            throw Mismatch(
                description: "its schema has migration \"\(unknown)\", which this authsh does not know (a newer authsh's database?): "
                    + "this one knows up to \"\(known.last ?? "")\"")
        }
        guard !done.isEmpty, Set(done) == Set(known.prefix(done.count)) else {
            throw Mismatch(description: "its migrations (\(done.count)) are not the first ones of authsh's schema")
        }
        let last = known[done.count - 1]
        let reference = try SQLiteConnection(path: ":memory:", readOnly: false)
        try migrate(reference, upTo: last)
        let missing = try shape(of: reference).subtracting(try shape(of: connection)).sorted()
        guard missing.isEmpty else {
            throw Mismatch(
                description: "its schema (\(last)) lacks \(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? ", ..." : "")")
        }
        return last
    }

    /// `table T`, `column T.C` and `index I` for each table, column and index of the database.
    package static func shape(of connection: SQLiteConnection) throws -> Set<String> {
        var shape: Set<String> = []
        var tables: [String] = []
        try connection.step(objects, []) { row in
            let (type, name) = (try row.text("type"), try row.text("name"))
            shape.insert("\(type) \(name)")
            if type == "table" { tables.append(name) }
        }
        for table in tables {
            try connection.step(columns, [.text(table)]) { shape.insert("column \(table).\(try $0.text("name"))") }
        }
        return shape
    }
}
