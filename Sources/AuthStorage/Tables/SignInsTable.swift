// SPDX-License-Identifier: Apache-2.0
/// `sign_ins`: login codes and logins waiting for a second factor, sealed (``SealedSignIn``),
/// and the redirect flows' states and passkey challenges spent (``SealedStates``).
package enum SignInsTable {
    package static let insert: SQL = "INSERT INTO sign_ins (id, app_id, kind, sealed, expires_at) VALUES (?, ?, ?, ?, ?)"

    package static func insertArguments(_ s: SealedSignIn) -> [SQLValue] {
        [.text(s.id), .text(s.appId), .text(s.kind.rawValue), .blob(s.sealed), .integer(s.expiresAt)]
    }

    /// Removes it and gives it back: whichever instance's DELETE removes it has it, once.
    package static let take: SQL = "DELETE FROM sign_ins WHERE id = ? AND kind = ? RETURNING id, app_id, kind, sealed, expires_at"

    package static func signIn<Row: SQLRow>(_ row: Row) throws -> SealedSignIn {
        guard let kind = SealedSignIn.Kind(rawValue: try row.text("kind")) else { throw SQLRowError(column: "kind") }
        return SealedSignIn(
            id: try row.text("id"), appId: try row.text("app_id"), kind: kind, sealed: try row.bytes("sealed"),
            expiresAt: try row.int64("expires_at"))
    }

    package static let deleteExpired: SQL = "DELETE FROM sign_ins WHERE expires_at <= ? RETURNING 1"
}

// MARK: the record

/// A sign-in under way that any instance may finish: a redirect flow waiting for the IdP's
/// callback, a login code waiting for its native client (``OAuthFlows``), a login waiting for
/// its second factor (``MFALogin``), or a passkey challenge (``PasskeyService``). The store
/// keeps it sealed: its key is a digest of the secret its holder presents, and its content is
/// encrypted under a key derived from that secret, so the table alone reveals nothing.
public struct SealedSignIn: Sendable, Equatable {
    /// `mfa`: a login whose first factor was proven, waiting for its second (``MFALogin``);
    /// `passkey`: a WebAuthn challenge waiting for its answer (``PasskeyService``).
    public enum Kind: String, Sendable { case flow, code, mfa, passkey, phone, phoneFactor = "phonefactor" }
    /// Hex SHA-256 of the secret (the `state` sent to the IdP, the login code, the `mfaToken`,
    /// the challenge).
    public var id: String
    public var appId: String
    public var kind: Kind
    /// AES-GCM box of the content.
    public var sealed: [UInt8]
    public var expiresAt: Int64

    /// The memberwise initialiser, for the whole package.
    package init(id: String, appId: String, kind: Kind, sealed: [UInt8], expiresAt: Int64) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.sealed = sealed
        self.expiresAt = expiresAt
    }
}
