import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// Credentials as Lua sees them. `tostring` names the provider and, for email/password, the
/// email; never a password, key or token.
public final class CredentialsObject: LuaObject {
    public let credentials: Credentials
    public init(_ credentials: Credentials) { self.credentials = credentials }

    var summary: String {
        if credentials.provider == ProviderType.userpass, let email = credentials.body["username"]?.stringValue {
            return "Credentials(\(credentials.provider), \(email))"
        }
        if credentials.provider == ProviderType.anonymous { return "Credentials(\(credentials.provider)\(credentials.reuse ? "" : ", new"))" }
        return "Credentials(\(credentials.provider))"
    }

    public static let luaClass = LuaClass<CredentialsObject>(
        "Credentials",
        properties: ["provider": { .string(LuaString($0.credentials.provider)) }],
        description: { $0.summary })
}

/// The `credentials` table: one constructor per kind of login, each making a login body of
/// docs/protocol/wire-protocol.md section 3.
enum CredentialsLibrary {
    static func table() -> LuaTable {
        var t = LuaTable()
        func add(_ name: String, _ make: @escaping @Sendable (LuaCall) throws -> Credentials) {
            t[name] = .function(LuaFunction("credentials.\(name)") { call in .one(.object(CredentialsObject(try make(call)))) })
        }
        add("anonymous") { call in
            guard !call.isNil(1) else { return .anonymous() }
            let options = try call.table(1)
            return .anonymous(reuse: options["reuse"] == .nil ? true : options["reuse"].isTruthy)
        }
        add("emailPassword") { call in  // (email, password) or {email =, password =}
            let values = try call.strings(["email", "password"], from: 1)
            return .emailPassword(email: values[0], password: values[1])
        }
        add("apiKey") { call in .userAPIKey(try call.string(1)) }
        add("serverApiKey") { call in .serverAPIKey(try call.string(1)) }
        add("jwt") { call in .jwt(try call.string(1)) }
        add("customFunction") { call in
            guard case .document(let payload) = try payloadEJSON(call) else {
                throw LuaArgumentError(index: 1, message: "the payload must be a table with string keys")
            }
            return .function(payload: payload)
        }
        add("google") { call in
            let options = try call.table(1)
            if let code = options["authCode"].stringValue { return .google(authCode: code) }
            if let token = options["idToken"].stringValue { return .google(idToken: token) }
            throw LuaArgumentError(index: 1, message: "give authCode or idToken")
        }
        // apple(idToken) or apple{idToken =}; facebook(accessToken) or facebook{accessToken =}.
        add("apple") { call in .apple(idToken: call.isTable(1) ? try call.table(1).string("idToken", argument: 1) : try call.string(1)) }
        add("facebook") { call in
            .facebook(accessToken: call.isTable(1) ? try call.table(1).string("accessToken", argument: 1) : try call.string(1))
        }
        add("oauth") { call in
            let provider = try call.string(1)
            var body: EJSONDocument = [:]
            if !call.isNil(2) {
                guard case .document(let options) = try LuaEJSON.ejson(.table(try call.table(2))) else {
                    throw LuaArgumentError(index: 2, message: "options must be a table with string keys")
                }
                body = options
            }
            let wire = provider.hasPrefix("oauth2-") ? provider : "oauth2-" + provider
            body["provider"] = .string(wire)
            return Credentials(provider: wire, body: body)
        }
        return t
    }

    private static func payloadEJSON(_ call: LuaCall) throws -> EJSON {
        do { return try LuaEJSON.ejson(.table(try call.table(1))) } catch let e as LuaEJSON.ConversionError {
            throw LuaArgumentError(index: 1, message: e.description)
        }
    }
}
