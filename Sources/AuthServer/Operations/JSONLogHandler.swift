// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import Logging

/// Logs one JSON object per line on standard error (`authsh serve --log-format json`):
/// `time` (ISO 8601, UTC, milliseconds), `level`, `label`, `message` and the entry's metadata
/// as fields, for log collectors that read JSON.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: EJSONDocument = [
            "time": .string(Self.timestamp()), "level": .string(event.level.rawValue),
            "label": .string(label), "message": .string(event.message.description),
        ]
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let entry = event.metadata { all.merge(entry) { $1 } }
        for key in all.keys.sorted() where fields[key] == nil {
            fields[key] = Self.value(all[key]!)
        }
        var line = EJSON.document(fields).encodedString(.relaxed)
        line.append("\n")
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func value(_ value: Logger.Metadata.Value) -> EJSON {
        switch value {
        case .string(let s): .string(s)
        case .stringConvertible(let c): .string(c.description)
        case .array(let items): .array(items.map(Self.value))
        case .dictionary(let d): .document(EJSONDocument(d.keys.sorted().map { ($0, Self.value(d[$0]!)) }))
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return ISODate.format(milliseconds: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
    }
}
