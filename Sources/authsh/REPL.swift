// SPDX-License-Identifier: Apache-2.0
import AuthScript
import CommandSupport
import Glibc
import Lua

/// The interactive loop: lua.c's behaviour (try `return <line>` first, continue incomplete
/// chunks on `>> `), with pretty-printed results, `_`, completion and a history file.
struct REPL {
    let session: Session
    let bindings: AuthScript
    static let continuation = ">> "

    /// `authsh APP [USER]> `: the app and the current user's email.
    var prompt: String { "authsh \(bindings.promptLabel)> " }

    func run() -> Int32 {
        let lua = session.lua
        bindings.prepareCompletion(in: lua)
        let editor = LineEditor(completer: { word, before in
            before.trimmingSpaces == ".help" ? REPL.helpTopics(word) : lua.completions(for: word)
        })
        let history = History(directory: session.dataDirectory)
        let formatter = LuaFormatter(color: Output.useColor)
        var saved = SavedSession()
        SecondFactorBindings.showEnrolment.withLock { $0 = REPL.showEnrolment }
        while true {
            let source: LuaReference
            var statement = ""
            switch readChunk(editor) {
            case .end:
                print("")
                return 0
            case .nothing:
                continue
            case .meta(let command):
                history.record(command, editor: editor)
                let parts = command.split(separator: " ", maxSplits: 1).map(String.init)
                switch parts[0] {
                case ".exit": return 0
                case ".help" where parts.count > 1: help(parts[1].trimmingSpaces)
                case ".help": print(Help.repl)
                case ".save" where parts.count > 1: saved.write(to: parts[1].trimmingSpaces)
                case ".save": Output.error("authsh: .save needs a file name: .save FILE")
                case ".users", ".whoami", ".outbox":
                    runMeta(parts[0], argument: parts.count > 1 ? parts[1].trimmingSpaces : nil)
                default: Output.error("authsh: unknown command \(command) (try .help)")
                }
                continue
            case .chunk(let chunk, let entry):
                history.record(entry, editor: editor)
                source = chunk
                statement = entry
            }
            do {
                let results = try session.interruptible { try lua.run(source) }
                saved.ran(statement, in: lua)
                if results.count > 0 {
                    lua.setGlobal("_", results.reference(0))
                    print(formatter.format(results).joined(separator: "\t"))
                }
            } catch let error as LuaError {
                if error.code == .interrupted { Output.write(1, "\n") }  // after the terminal's ^C
                if case .object(let box)? = error.value, let authError = box.object as? AuthErrorObject {
                    // `_` is the error, so `_.credential` and friends are at hand.
                    try? lua.setGlobal("_", .object(box))
                    session.report(error, line: authError.replLine)
                    if authError.error.code == "MFARequired" { completeLogin(box, editor: editor, formatter: formatter) }
                } else {
                    session.report(error)
                }
            } catch {
                Output.error("authsh: \(error)")
            }
            fflush(nil)
        }
    }

    /// The second step of a login that answered `MFARequired` (`box`, the error): the code
    /// typed at a prompt completes it, as `login(credentials.mfa(_, code))` would. A wrong
    /// code asks again while the token has attempts left; an empty line or Ctrl-C gives up.
    private func completeLogin(_ box: LuaObjectBox, editor: LineEditor, formatter: LuaFormatter) {
        let lua = session.lua
        while true {
            guard case .line(let line) = editor.read(prompt: "code (authenticator app, or a recovery code): ") else {
                print("")
                return
            }
            let code = line.trimmingSpaces
            guard !code.isEmpty else { return }
            do {
                let results = try session.run(
                    Array("local err, code = ...; return login(credentials.mfa(err, code))".utf8), name: "=(second factor)",
                    arguments: [.object(box), .string(LuaString(code))])
                if results.count > 0 {
                    lua.setGlobal("_", results.reference(0))
                    print(formatter.format(results).joined(separator: "\t"))
                }
                return
            } catch let error as LuaError {
                guard case .object(let wrong)? = error.value, let authError = wrong.object as? AuthErrorObject else {
                    session.report(error)
                    return
                }
                session.report(error, line: authError.line)
                // The token takes another code unless this one was its last attempt.
                guard authError.error.code == "InvalidMFACode", !authError.error.message.hasSuffix("log in again") else { return }
            } catch {
                Output.error("authsh: \(error)")
                return
            }
        }
    }

    /// Draws a TOTP enrolment's `otpauth://` URI as a QR code for a phone to scan (with
    /// `qrencode`; the URI alone when it is not installed).
    @Sendable static func showEnrolment(_ uri: String) {
        var text = "Scan this with an authenticator app, then confirm with a code: user:confirmTOTP(\"123456\")\n"
        if let code = TerminalQRCode.render(uri) {
            text += code
        } else {
            text += "(install qrencode to see the QR code here; the URI holds the secret:)\n"
        }
        text += TerminalText.safe(uri) + "\n"
        Output.write(1, text)
    }

    /// What `.help ` completes: the names `.help` knows that start with `prefix`.
    static func helpTopics(_ prefix: String) -> [String] {
        helpNames.filter { $0.hasPrefix(prefix) }
    }

    /// Every global, table entry, class and class member, as `.help` takes them.
    static let helpNames: [String] = {
        let api = AuthScript.api
        let members = api.classes.flatMap { cls in [cls.name] + cls.members.map { "\(cls.name)\($0.isMethod ? ":" : ".")\($0.name)" } }
        return (api.entries.map(\.path) + members).sorted()
    }()

    /// `.help NAME`: the binding's description, as the reference gives it.
    func help(_ name: String) {
        if let text = AuthScript.api.help(name) {
            print(text, terminator: "")
        } else {
            Output.error("authsh: no binding is named \(name) (try .help auth, .help User or .help login)")
        }
    }

    /// The meta commands that show auth state: each runs a small chunk and prints its text.
    static let metaChunks = [
        ".users": #"""
        local list, current = users(), whoami()
        if #list == 0 then return "no users (log in with login(credentials.anonymous()))" end
        local lines = {}
        for i, u in ipairs(list) do lines[i] = (u == current and "* " or "  ") .. tostring(u) end
        return table.concat(lines, "\n")
        """#,
        ".whoami": #"""
        local u = whoami()
        if u == nil then return "no user is logged in" end
        local ids = {}
        for i, identity in ipairs(u.identities) do
          ids[i] = "  " .. identity.providerType .. (identity.email and ("  " .. identity.email) or "") .. "  " .. identity.id
        end
        return ("%s\n  identities:\n%s"):format(tostring(u), table.concat(ids, "\n"))
        """#,
        ".outbox": #"""
        local email = ...
        local list = outbox{ email = email }
        if #list == 0 then return "the outbox is empty" .. (email and (" for " .. email) or "") end
        local lines = {}
        for i, m in ipairs(list) do
          -- A Firebase app's outbox is the emulator's action codes: no subject, their type.
          local subject = (m.subject or "") ~= "" and m.subject or (m.requestType or "")
          local line = ("%s  %-7s %s"):format(m.to, m.kind, subject)
          if m.kind == "signin" and (m.link or "") ~= "" then
            line = line .. ("\n    login(credentials.emailLink(%q, %q))"):format(m.to, m.link)
          elseif m.kind == "confirm" and (m.token or "") ~= "" then
            line = line .. ("\n    confirm{ token = %q, tokenId = %q }"):format(m.token, m.tokenId)
          elseif m.kind == "reset" and (m.token or "") ~= "" then
            line = line .. ("\n    resetPassword{ token = %q, tokenId = %q, password = ... }"):format(m.token, m.tokenId)
          elseif (m.body or "") == "" and (m.link or "") ~= "" then
            line = line .. "\n    " .. m.link
          else
            line = line .. "\n    " .. m.body:gsub("\n", "\n    ")
          end
          lines[i] = line
        end
        return table.concat(lines, "\n")
        """#,
    ]

    private func runMeta(_ name: String, argument: String?) {
        guard let source = REPL.metaChunks[name] else { return }
        do {
            let results = try session.run(
                Array(source.utf8), name: "=" + name,
                arguments: argument.map { [.string(LuaString($0))] } ?? [])
            // Emails, ids and mail subjects the server sent.
            if let text = try results.values().first?.stringValue { print(TerminalText.safe(text, keepingLines: true)) }
        } catch let error as LuaError {
            session.report(error)
        } catch {
            Output.error("authsh: \(error)")
        }
    }

    enum ChunkInput {
        case chunk(LuaReference, entry: String)
        case meta(String)
        /// Ctrl-C, or a chunk that did not compile (already reported).
        case nothing
        case end
    }

    /// Reads lines until they form a chunk.
    private func readChunk(_ editor: LineEditor) -> ChunkInput {
        let lua = session.lua
        let first: String
        switch editor.read(prompt: prompt) {
        case .line(let line): first = line
        case .interrupted: return .nothing
        case .endOfFile: return .end
        }
        let trimmed = first.trimmingSpaces
        if trimmed.hasPrefix(".") && !trimmed.hasPrefix("..") { return .meta(trimmed) }
        if trimmed.isEmpty { return .nothing }
        if let expression = try? lua.load("return " + first, name: "=stdin") { return .chunk(expression, entry: first) }
        var text = first
        while true {
            do {
                return .chunk(try lua.load(text, name: "=stdin"), entry: text)
            } catch let error as LuaError where error.isIncompleteChunk {
                switch editor.read(prompt: REPL.continuation) {
                case .line(let more): text += "\n" + more
                case .interrupted: return .nothing
                case .endOfFile: return .end
                }
            } catch {
                Output.error((error as? LuaError)?.message ?? "\(error)")
                return .nothing
            }
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
