// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// A software passkey authenticator as Lua sees it (`auth.passkey.authenticator()`): it holds
/// credentials (private keys: secrets) and answers a server's options as a browser would.
final class AuthenticatorObject: LuaObject {
    let authenticator: SoftwareAuthenticator
    init(_ authenticator: SoftwareAuthenticator) { self.authenticator = authenticator }

    static func credentialTable(_ c: SoftwareAuthenticator.Credential) -> LuaValue {
        .table(
            LuaTable([
                "id": .string(LuaString(Base64.encode(c.id, urlSafe: true))), "rpId": .string(LuaString(c.rpId)),
                "userName": .string(LuaString(c.userName)), "signCount": .integer(Int64(c.signCount)),
            ]))
    }

    static let luaClass = LuaClass<AuthenticatorObject>(
        "Authenticator",
        summary: "A passkey authenticator in software (`auth.passkey.authenticator()`): ES256 keys, discoverable credentials that "
            + "verify the user, answers exactly as a browser sends them. `tostring` names its origin and how many credentials it holds.",
        members: [
            .property("origin", "string", "the page origin it claims (`clientDataJSON.origin`)") { .string(LuaString($0.authenticator.origin)) },
            .property(
                "credentials", "{id: string, rpId: string, userName: string, signCount: integer}[]", "the credentials it holds, without their keys"
            ) {
                .table(LuaTable(array: $0.authenticator.credentials.map(AuthenticatorObject.credentialTable)))
            },
            .method(
                "export", "(): table",
                "its credentials with their private keys (PKCS#8, base64url: secrets), as `import` and a browser's virtual "
                    + "authenticator take them"
            ) { object, _ in .one(LuaEJSON.lua(object.authenticator.exported)) },
            .method(
                "import", "(credentials: table)",
                "replaces its credentials with exported ones (another authenticator's: a clone, whose counter lags)"
            ) { object, call in
                guard let credentials = SoftwareAuthenticator.credentials(try LuaEJSON.ejson(.table(try call.table(2)))) else {
                    throw LuaArgumentError(index: 2, message: "not the credentials `export` returns")
                }
                try object.authenticator.replaceCredentials(credentials)
                return .none
            },
        ],
        description: { "Authenticator(\($0.authenticator.origin), \($0.authenticator.credentials.count) credentials)" })
}

/// Passkeys in Lua: `auth.passkey.authenticator`, the user's passkey methods, and
/// `credentials.passkey`.
enum PasskeyBindings {
    /// The origin an authenticator claims by default: `http://localhost` (with the port) for a
    /// server on this machine, the dev server's passkeys' origin; else the server's own.
    static func defaultOrigin(_ server: ScriptServer) -> String {
        if server.isEmbedded { return "http://localhost" }
        let url = server.baseURL
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let hostPort = rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? String(rest)
        var host = hostPort, port = ""
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            host = String(hostPort[..<colon])
            port = String(hostPort[colon...])
        }
        if ["127.0.0.1", "localhost", "[::1]"].contains(host) { return "http://localhost" + port }
        return String(url[..<schemeEnd.upperBound]) + hostPort
    }

    static func module(configuration: AuthScript.Configuration) -> LuaModule {
        var t = LuaModule("auth.passkey", summary: "Passkeys without a browser: a software authenticator.")
        t.add(
            LuaFunction(
                "auth.passkey.authenticator", "(options?: {origin: string?, name: string?, verifiesUser: boolean?}): Authenticator",
                "A software passkey authenticator. `origin`: the page it claims to be (default `http://localhost`, the dev "
                    + "server's passkeys, or the server's origin). `name`: keep its credentials in `DATA/authenticators/NAME.json` "
                    + "(0600), so a later run has them; without it they are in memory. `verifiesUser = false`: it does not verify "
                    + "the user (flag UV), so its logins are one factor."
            ) { call in
                let options = call.isNil(1) ? LuaTable() : try call.table(1)
                let origin = options["origin"] == .nil ? defaultOrigin(configuration.server) : try options.string("origin", argument: 1)
                let verifies = options["verifiesUser"] == .nil || options["verifiesUser"].isTruthy
                guard options["name"] != .nil else {
                    return .one(.object(AuthenticatorObject(SoftwareAuthenticator(origin: origin, verifiesUser: verifies))))
                }
                let name = try options.string("name", argument: 1)
                guard let data = configuration.dataDirectory else {
                    throw LuaArgumentError(index: 1, message: "field 'name': no data directory to keep the credentials in")
                }
                return .one(
                    .object(AuthenticatorObject(try SoftwareAuthenticator.stored(name: name, storage: data, origin: origin, verifiesUser: verifies))))
            })
        return t
    }

    /// The `User` methods.
    static func userMembers() -> [LuaMember<UserObject>] {
        func method(
            _ name: String, _ type: String, _ summary: String,
            _ body: @escaping @Sendable (UserPasskeys, LuaCall) throws -> @Sendable () async throws -> [LuaValue]
        ) -> LuaMember<UserObject> { UserObject.method(name, type, summary, on: { $0.passkeys }, body) }
        @Sendable func table(_ p: Passkey) -> LuaValue {
            var t = LuaTable(["id": .string(LuaString(p.id)), "name": .string(LuaString(p.name)), "createdAt": .integer(p.createdAt)])
            if let used = p.lastUsedAt { t["lastUsedAt"] = .integer(used) }
            return .table(t)
        }
        return [
            method(
                "registerPasskey", "(options: {authenticator: Authenticator, name: string?}): Passkey",
                "registers a passkey of the authenticator (a login within the last 10 minutes): asks the server for options, has "
                    + "the authenticator answer them as a browser would, sends the answer"
            ) { passkeys, call in
                let options = try call.table(2)
                guard case .object(let box) = options["authenticator"], let a = box.object as? AuthenticatorObject else {
                    throw LuaArgumentError(index: 2, message: "field 'authenticator': an Authenticator (auth.passkey.authenticator()) expected")
                }
                let name = options["name"] == .nil ? "passkey" : try options.string("name", argument: 2)
                return { [table(try await passkeys.register(with: a.authenticator, name: name))] }
            },
            method("passkeys", "(): Passkey[]", "the user's passkeys, oldest first") { passkeys, _ in
                { [.table(LuaTable(array: try await passkeys.list().map(table)))] }
            },
            method("renamePasskey", "(id: string, name: string)", "renames one of the user's passkeys") { passkeys, call in
                let id = try call.string(2), name = try call.string(3)
                return {
                    try await passkeys.rename(id: id, to: name); return []
                }
            },
            method(
                "removePasskey", "(id: string)",
                "removes one of the user's passkeys (a recent login): the sessions it opened end"
            ) { passkeys, call in
                let id = try call.string(2)
                return {
                    try await passkeys.remove(id: id); return []
                }
            },
        ]
    }

    /// `credentials.passkey(authenticator)` or `{authenticator = ...}`.
    static func credential(_ call: LuaCall) throws -> Credentials {
        if let a = try? call.object(1, as: AuthenticatorObject.self) { return .passkey(a.authenticator) }
        let options = try call.table(1)
        guard case .object(let box) = options["authenticator"], let a = box.object as? AuthenticatorObject else {
            throw LuaArgumentError(index: 1, message: "an Authenticator, or {authenticator = ...}, expected")
        }
        return .passkey(a.authenticator)
    }
}
