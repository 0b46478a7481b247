import AuthProtocol
import Hummingbird

/// The App Services client API (docs/protocol/wire-protocol.md section 2).
extension AuthService {
    func addClientRoutes(to router: Router<AuthRequestContext>) {
        let app = router.group(RouterPath(Routes.base + "/app/:app"))
        app.get("location") { request, context in
            _ = try self.app(of: context)
            let base = self.clientBaseURL(request, context)
            let ws = base.hasPrefix("https://") ? "wss://" + base.dropFirst(8) : "ws://" + base.dropFirst(7)
            var response = JSONResponse.make([
                "deployment_model": "GLOBAL", "location": "US-VA",
                "hostname": .string(base), "ws_hostname": .string(String(ws)),
            ])
            // Worked out from this request: no cache may hand it to another client.
            response.headers[.cacheControl] = "no-store"
            return response
        }
        app.get(".well-known/jwks.json") { _, context in
            let app = try self.app(of: context)
            return JSONResponse.make(self.tokens.jwks(app: app.id))
        }
        app.post("auth/providers/:provider/login") { request, context in
            let app = try self.app(of: context)
            let provider = context.parameters.get("provider") ?? ""
            let linking = request.uri.queryParameters.get("link") == "true"
            let token = linking ? try request.bearerToken() : nil
            let body = try await RequestBody.read(request, context: context)
            return JSONResponse.make(
                try await self.login(
                    app: app, provider: provider, body: body, linkToken: token,
                    address: context.clientAddress))
        }
        let userpass = app.group("auth/providers/local-userpass")
        userpass.post("register") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            try await self.register(
                app: app, email: try body.string("email"), password: try body.string("password"),
                origin: self.origin(request), address: context.clientAddress)
            return JSONResponse.make([:], status: .created)
        }
        userpass.post("confirm") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            let tokenId = try body.string("tokenId")
            try self.checkRate(.token, app: app, address: context.clientAddress, account: tokenId)
            try await self.confirm(app: app, token: try body.string("token"), tokenId: tokenId)
            return JSONResponse.empty
        }
        userpass.post("confirm/send") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            let email = try body.string("email")
            try self.checkRate(.mail, app: app, address: context.clientAddress, account: email.lowercased())
            try await self.resendConfirmation(app: app, email: email, origin: self.origin(request))
            return JSONResponse.empty
        }
        userpass.post("confirm/call") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            let email = try body.string("email")
            try self.checkRate(.function, app: app, address: context.clientAddress, account: email.lowercased())
            try await self.rerunConfirmation(app: app, email: email)
            return JSONResponse.empty
        }
        userpass.post("reset/send") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            let email = try body.string("email")
            try self.checkRate(.mail, app: app, address: context.clientAddress, account: email.lowercased())
            try await self.sendReset(app: app, email: email, origin: self.origin(request))
            return JSONResponse.empty
        }
        userpass.post("reset") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            let tokenId = try body.string("tokenId")
            try self.checkRate(.token, app: app, address: context.clientAddress, account: tokenId)
            try await self.reset(
                app: app, token: try body.string("token"), tokenId: tokenId,
                password: try body.string("password"))
            return JSONResponse.empty
        }
        userpass.post("reset/call") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            let email = try body.string("email")
            try self.checkRate(.function, app: app, address: context.clientAddress, account: email.lowercased())
            try await self.callReset(
                app: app, email: email, password: try body.string("password"),
                arguments: try Self.arguments(body))
            return JSONResponse.empty
        }
        app.get("auth/methods") { request, context in
            let app = try self.app(of: context)
            return JSONResponse.make(
                try await self.signInMethods(
                    app: app, email: request.uri.queryParameters.get("email"),
                    address: context.clientAddress))
        }
        userpass.post("change") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            try await self.changePassword(app: app, token: try request.bearerToken(), body: body, address: context.clientAddress)
            return JSONResponse.empty
        }
        app.post("functions/call") { request, context in
            let (app, body) = try await self.appAndBody(request, context)
            return JSONResponse.make(
                try await self.callFunction(
                    app: app, token: try request.bearerToken(), body: body,
                    address: context.clientAddress))
        }

        let auth = router.group(RouterPath(Routes.base + "/auth"))
        auth.get("profile") { request, _ in
            let (app, user, _) = try await self.userOfAccessToken(try request.bearerToken())
            return JSONResponse.make(Self.profile(user, app: app))
        }
        auth.post("session") { request, _ in
            let access = try await self.refresh(try request.bearerToken())
            return JSONResponse.make(["access_token": .string(access)], status: .created)
        }
        auth.delete("session") { request, _ in
            let (_, session, _) = try await self.sessionOfRefreshToken(try request.bearerToken())
            try await self.store.deleteSession(id: session.id)
            return JSONResponse.empty
        }
        auth.post("unlink") { request, context in
            let body = try await RequestBody.read(request, context: context)
            return JSONResponse.make(try await self.unlink(token: try request.bearerToken(), body: body))
        }
        auth.delete("delete") { request, _ in
            try await self.deleteUser(token: try request.bearerToken())
            return JSONResponse.empty
        }
        auth.get("sessions") { request, _ in
            JSONResponse.make(try await self.sessions(token: try request.bearerToken()))
        }
        auth.delete("sessions") { request, _ in
            JSONResponse.make(try await self.revokeOtherSessions(token: try request.bearerToken()))
        }
        auth.delete("sessions/:id") { request, context in
            try await self.revokeSession(token: try request.bearerToken(), id: context.parameters.get("id") ?? "")
            return JSONResponse.empty
        }
        addAPIKeyRoutes(to: auth.group("api_keys"))
    }

    private func appAndBody(_ request: Request, _ context: AuthRequestContext) async throws -> (AppRuntime, RequestBody) {
        let app = try self.app(of: context)
        return (app, try await RequestBody.read(request, context: context))
    }

    /// The origin for links in mails: `publicURL`; without it, in dev mode on a loopback
    /// address, the loopback origin the client used; otherwise none (mails then carry the
    /// token and token id without a link). Never a `Host` header that names another machine:
    /// an attacker asking for a victim's reset would choose where the victim's link points.
    func origin(_ request: Request) -> String? {
        if let publicURL { return publicURL }
        guard outbox != nil, ServerConfiguration.isLoopback(host: listenHost),
            let authority = request.head.authority, ServerConfiguration.isLoopback(host: authority),
            authority.allSatisfy({ $0.isLetter || $0.isNumber || ":.[]".contains($0) })
        else { return nil }
        return "http://\(authority)"
    }

    /// The profile body: `{user_id, domain_id, type, identities, data}`.
    static func profile(_ user: UserRecord, app: AppRuntime) -> EJSON {
        [
            "user_id": .string(user.id), "domain_id": .string(app.id), "type": .string(user.type),
            "identities": .array(
                user.identities.map {
                    [
                        "id": .string($0.externalId), "provider_type": .string($0.providerType),
                        "provider_id": .string($0.providerId), "provider_data": .document($0.data),
                    ]
                }),
            "data": .document(user.data),
        ]
    }
}
