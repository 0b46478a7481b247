// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A passkey as the server lists it.
public struct Passkey: Sendable, Equatable {
    /// The credential id, base64url.
    public var id: String
    public var name: String
    public var createdAt: Int64
    public var lastUsedAt: Int64?
}

/// The passkeys of a user (`/auth/passkeys`, with the access token). Registering one needs a
/// recent login; removing one, a recent login that used the second factor when the user has one.
public struct UserPasskeys: Sendable {
    let user: User

    private func request(_ method: String, _ path: String, body: EJSON? = nil) async throws(AuthClientError) -> EJSON {
        try await user.app.request(method, Routes.passkeys + path, body: body, auth: .access(userId: user.id))
    }

    private func passkey(_ value: EJSON) throws(AuthClientError) -> Passkey {
        guard let id = value["id"]?.stringValue, let name = value["name"]?.stringValue, let created = value["createdAt"]?.integerValue else {
            throw user.app.malformed("a passkey lacks id, name or createdAt")
        }
        return Passkey(id: id, name: name, createdAt: created, lastUsedAt: value["lastUsedAt"]?.integerValue)
    }

    /// Registers a new credential of `authenticator`: asks the server for options, has the
    /// authenticator answer them, and sends its answer.
    @discardableResult
    public func register(with authenticator: SoftwareAuthenticator, name: String = "passkey") async throws(AuthClientError) -> Passkey {
        let options = try await request("POST", "/options")
        guard let publicKey = options["publicKey"] else { throw user.app.malformed("the passkey options have no publicKey") }
        let credential = try SoftwareAuthenticator.answer { try authenticator.create(publicKey) }
        return try passkey(try await request("POST", "", body: ["credential": credential, "name": .string(name)]))
    }

    /// Every passkey, oldest first.
    public func list() async throws(AuthClientError) -> [Passkey] {
        guard case .array(let items) = try await request("GET", "") else { throw user.app.malformed("the passkey list is not an array") }
        var list: [Passkey] = []
        for item in items { list.append(try passkey(item)) }
        return list
    }

    public func rename(id: String, to name: String) async throws(AuthClientError) {
        _ = try await request("PUT", "/" + Self.escape(id), body: ["name": .string(name)])
    }

    /// Removes it; the sessions it opened end.
    public func remove(id: String) async throws(AuthClientError) {
        _ = try await request("DELETE", "/" + Self.escape(id))
    }

    /// A credential id in a path: base64url needs no escaping, anything else is refused by the server.
    private static func escape(_ id: String) -> String {
        String(id.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }
}

extension User {
    /// This user's passkeys.
    public var passkeys: UserPasskeys { UserPasskeys(user: self) }
}

extension SoftwareAuthenticator {
    /// Runs an authenticator call; a refusal becomes an `AuthClientError` named as the browser
    /// names it (`NotAllowedError`, `InvalidStateError`, ...).
    static func answer(_ body: () throws -> EJSON) throws(AuthClientError) -> EJSON {
        do {
            return try body()
        } catch let failure as SoftwareAuthenticator.Failure {
            throw AuthClientError(code: failure.name, message: "the authenticator refused: \(failure.message)")
        } catch {
            throw AuthClientError(code: failure, message: "the authenticator failed: \(error)")
        }
    }

    private static let failure = "AuthenticatorFailed"
}
