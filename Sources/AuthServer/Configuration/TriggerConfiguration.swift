// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An authentication trigger: app key `triggers`, each in App Services' own shape, so that an
/// exported App Services app's trigger files fit.
///
/// ```json
/// {"name": "onSignup", "type": "AUTHENTICATION", "function_name": "recordSignup",
///  "config": {"operation_type": "CREATE", "providers": ["local-userpass"]}, "disabled": false}
/// ```
///
/// The function runs after the fact, never in the request: the event is written in the
/// transaction of the change that causes it, and a worker runs it with retries on any instance
/// sharing the database (``TriggerRunner``). An export's `id` is accepted and ignored, and its
/// `event_processors.FUNCTION.config.function_name` stands for `function_name`. authsh adds
/// `timeLimitSeconds` (the function's deadline, 10 s by default) and `giveUpAfterSeconds` (when
/// a run that keeps failing is given up, a day by default).
public struct TriggerConfiguration: Sendable, Equatable {
    /// The operations a trigger follows.
    public enum Operation: String, Sendable, CaseIterable {
        case create = "CREATE", login = "LOGIN", delete = "DELETE"
    }

    public var name: String
    public var functionName: String
    public var operation: Operation
    /// The provider types it follows; empty: every provider.
    public var providers: [String] = []
    public var disabled = false
    /// The function's deadline, in seconds.
    public var timeLimitSeconds: Int64 = 10
    /// How long after the event a run that keeps failing is tried, in seconds.
    public var giveUpAfterSeconds: Int64 = 86_400

    public init(name: String, functionName: String, operation: Operation) {
        self.name = name
        self.functionName = functionName
        self.operation = operation
    }

    /// Whether an event of `operation` with `providers` (the login's, or the user's) runs it.
    func follows(_ operation: Operation, providers eventProviders: [String]) -> Bool {
        !disabled && self.operation == operation && (providers.isEmpty || eventProviders.contains(where: providers.contains))
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let name = try r.string("name"), !name.isEmpty, name.utf8.count <= 128 else {
            throw ConfigError(key: r.keyPath("name"), reason: "missing: every trigger needs a name (1 to 128 bytes)")
        }
        let type = try r.string("type") ?? "AUTHENTICATION"
        guard type == "AUTHENTICATION" else {
            throw ConfigError(key: r.keyPath("type"), reason: "must be \"AUTHENTICATION\" (authsh has no database triggers), got \"\(type)\"")
        }
        _ = r.value("id")
        let processors = r.value("event_processors")
        var function = try r.string("function_name")
        if function == nil { function = processors?["FUNCTION"]?["config"]?["function_name"]?.stringValue }
        guard let function, !function.isEmpty else {
            throw ConfigError(key: r.keyPath("function_name"), reason: "missing: the plugin function the trigger runs")
        }
        guard let config = r.value("config") else {
            throw ConfigError(key: r.keyPath("config"), reason: "missing: {\"operation_type\": \"CREATE\" | \"LOGIN\" | \"DELETE\"}")
        }
        var c = try ConfigReader(config, path: r.keyPath("config"))
        let raw = try c.string("operation_type") ?? ""
        guard let operation = Operation(rawValue: raw) else {
            throw ConfigError(key: c.keyPath("operation_type"), reason: "must be \"CREATE\", \"LOGIN\" or \"DELETE\", got \"\(raw)\"")
        }
        self.init(name: name, functionName: function, operation: operation)
        providers = try c.strings("providers") ?? []
        try c.finish()
        disabled = try r.bool("disabled", default: false)
        timeLimitSeconds = try r.integer("timeLimitSeconds", in: 1...120) ?? timeLimitSeconds
        giveUpAfterSeconds = try r.integer("giveUpAfterSeconds", in: 60...2_592_000) ?? giveUpAfterSeconds
        try r.finish()
    }

    var ejson: EJSON {
        [
            "name": .string(name), "type": "AUTHENTICATION", "function_name": .string(functionName),
            "config": ["operation_type": .string(operation.rawValue), "providers": .array(providers.map(EJSON.string))],
            "disabled": .bool(disabled), "timeLimitSeconds": .int64(timeLimitSeconds),
            "giveUpAfterSeconds": .int64(giveUpAfterSeconds),
        ]
    }
}
