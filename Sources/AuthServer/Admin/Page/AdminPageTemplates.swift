// SPDX-License-Identifier: Apache-2.0
import Mustache

/// The admin page's HTML, as Mustache templates (`{{x}}` is escaped; `{{{content}}}` is a
/// page already rendered). No script anywhere: plain links and forms, each form with its
/// CSRF token. The style sheet is a file of its own (`/admin/style.css`), so the
/// Content-Security-Policy can forbid inline styles and every script.
enum AdminPageTemplates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, source) in sources {
            // The templates are constants of this file: a parse error is a bug caught by any test.
            try! library.register(MustacheTemplate(string: source), named: name)
        }
        return library
    }()

    static func render(_ name: String, _ values: [String: Any]) -> String {
        library.render(values, withTemplate: name) ?? ""
    }

    static let sources: [String: String] = [
        "layout": """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · authsh admin</title><link rel="stylesheet" href="/admin/style.css">
        <link rel="icon" type="image/svg+xml" href="/admin/favicon.svg"></head>
        <body>
        <header><a class="brand" href="/admin">authsh admin</a>
        {{#signedIn}}<nav>{{#apps}}<a href="/admin/apps/{{id}}/users"{{#current}} aria-current="page"{{/current}}>{{id}}</a> {{/apps}}
        <a href="/admin/apps/{{app}}/audit">audit log</a></nav>
        <form method="post" action="/admin/logout"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Sign out ({{keyName}})</button></form>{{/signedIn}}
        </header>
        <main>
        {{{content}}}
        </main></body></html>
        """,
        "login": """
        <h1>Sign in</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#insecure}}<p class="error" role="alert" id="insecure">An admin key typed here would cross the network in clear. Open this page over https: list the proxy that terminates TLS in <code>trustedProxies</code> (it sends <code>X-Forwarded-Proto</code>, or names the server's https <code>publicURL</code> host), or run it on this machine. From this machine, http://127.0.0.1 works too.</p>{{/insecure}}
        {{^insecure}}
        <form method="post" action="{{action}}" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="text" name="username" autocomplete="username" value="admin" hidden>
        <label for="key">Admin key</label>
        <input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
        <button type="submit" class="primary" id="sign-in">Sign in</button>
        </form>
        <p class="note">An admin key from the server's <code>adminKeys</code>.</p>
        {{/insecure}}
        """,
        "users": """
        <h1>Users of {{app}}</h1>
        <form method="get" action="/admin/apps/{{app}}/users" class="search">
        <label for="email">Email</label><input id="email" name="email" type="search" value="{{email}}" placeholder="a prefix">
        <label for="state">State</label><select id="state" name="state">
        <option value=""{{#any}} selected{{/any}}>any</option>
        <option value="enabled"{{#enabled}} selected{{/enabled}}>enabled</option>
        <option value="disabled"{{#disabled}} selected{{/disabled}}>disabled</option></select>
        <button type="submit" id="search">Search</button>
        </form>
        <div class="scroll"><table id="users">
        <thead><tr><th>User</th><th>Email</th><th>Providers</th><th>State</th><th>Created</th><th>Last login</th></tr></thead>
        <tbody>
        {{#users}}<tr><td><a href="/admin/apps/{{app}}/users/{{path}}">{{id}}</a></td><td>{{email}}</td><td>{{providers}}</td>
        <td class="{{state}}">{{state}}</td><td>{{created}}</td><td>{{lastLogin}}</td></tr>
        {{/users}}
        {{^users}}<tr><td colspan="6">No users.</td></tr>{{/users}}
        </tbody></table></div>
        {{#next}}<p><a id="next" href="{{next}}">Next page</a></p>{{/next}}
        """,
        "user": """
        <p><a href="/admin/apps/{{app}}/users">← Users of {{app}}</a></p>
        <h1>User {{id}}</h1>
        <dl class="facts">
        <dt>State</dt><dd id="state" class="{{state}}">{{state}}</dd>
        <dt>Email</dt><dd>{{email}}</dd><dt>Created</dt><dd>{{created}}</dd><dt>Last login</dt><dd>{{lastLogin}}</dd>
        </dl>
        <div class="actions">
        {{#disabled}}<form method="post" action="/admin/apps/{{app}}/users/{{path}}/enable"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="enable">Enable</button></form>{{/disabled}}
        {{^disabled}}<form method="post" action="/admin/apps/{{app}}/users/{{path}}/disable"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="disable">Disable…</button></form>{{/disabled}}
        <form method="post" action="/admin/apps/{{app}}/users/{{path}}/delete"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="danger" id="delete">Delete…</button></form>
        </div>
        <h2>Identities</h2>
        <ul>{{#identities}}<li><strong>{{providerType}}</strong> {{externalId}}{{#identityEmail}} · {{identityEmail}}{{/identityEmail}}</li>{{/identities}}</ul>
        <h2>Sessions</h2>
        {{#hasSessions}}<form method="post" action="/admin/apps/{{app}}/users/{{path}}/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="revoke-all">Revoke every session</button></form>{{/hasSessions}}
        <div class="scroll"><table id="sessions"><thead><tr><th>Session</th><th>Provider</th><th>Started</th><th>Last used</th><th></th></tr></thead><tbody>
        {{#sessions}}<tr><td>{{id}}</td><td>{{providerType}}</td><td>{{created}}</td><td>{{lastUsed}}</td>
        <td><form method="post" action="/admin/apps/{{app}}/users/{{user}}/sessions/{{id}}/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Revoke</button></form></td></tr>{{/sessions}}
        {{^sessions}}<tr><td colspan="5">No sessions.</td></tr>{{/sessions}}
        </tbody></table></div>
        <h2>API keys</h2>
        <ul>{{#apiKeys}}<li>{{name}}{{#disabled}} (disabled){{/disabled}}</li>{{/apiKeys}}{{^apiKeys}}<li>None.</li>{{/apiKeys}}</ul>
        <h2>Custom data</h2>
        <pre id="custom-data">{{customData}}</pre>
        <h2>Audit events</h2>
        {{> events}}
        """,
        "events": """
        <div class="scroll"><table class="events"><thead><tr><th>Time</th><th>Event</th><th>Outcome</th><th>User</th><th>Provider</th><th>Address</th><th>Actor</th><th>Detail</th></tr></thead><tbody>
        {{#events}}<tr><td>{{time}}</td><td>{{event}}</td><td class="{{outcome}}">{{outcome}}</td><td>{{#eventUser}}<a href="/admin/apps/{{app}}/users/{{eventUser}}">{{eventUser}}</a>{{/eventUser}}</td><td>{{provider}}</td><td>{{address}}</td><td>{{actor}}</td><td>{{detail}}</td></tr>{{/events}}
        {{^events}}<tr><td colspan="8">No events.</td></tr>{{/events}}
        </tbody></table></div>
        """,
        "audit": """
        <h1>Audit log of {{app}}</h1>
        <form method="get" action="/admin/apps/{{app}}/audit" class="search">
        <label for="event">Event</label><input id="event" name="event" value="{{event}}" placeholder="login, user_disabled, …">
        <label for="user">User</label><input id="user" name="user" value="{{user}}">
        <button type="submit">Filter</button>
        </form>
        {{> events}}
        {{#next}}<p><a href="{{next}}">Older</a></p>{{/next}}
        """,
        "confirm": """
        <h1>{{question}}</h1>
        <p>{{explanation}}</p>
        <form method="post" action="{{action}}" class="actions">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="confirm" value="yes">
        <button type="submit" class="danger" id="confirm">{{verb}}</button>
        <a href="{{back}}">Cancel</a>
        </form>
        """,
        "message": """
        <h1>{{title}}</h1><p>{{message}}</p><p><a href="/admin">Back</a></p>
        """,
    ]

    /// The page's icon (a browser asks for one; without it, a 404 in the console).
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f883d"/><path d="M5 8h6M8 5v6" stroke="#fff" stroke-width="2"/></svg>
        """

    static let css = """
        :root { color-scheme: light dark; --line: #d1d9e0; --muted: #59636e; --bad: #cf222e; --good: #1a7f37; }
        * { box-sizing: border-box; }
        body { font: 15px/1.5 system-ui, sans-serif; margin: 0; }
        header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
        header .brand { font-weight: 600; text-decoration: none; }
        header nav { flex: 1; display: flex; flex-wrap: wrap; gap: .8rem; }
        header form { margin: 0; }
        main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
        a[aria-current] { font-weight: 600; }
        .note { color: var(--muted); }
        .error { color: var(--bad); }
        .stack { display: grid; gap: .5rem; max-width: 24rem; }
        .search { display: flex; flex-wrap: wrap; gap: .4rem .6rem; align-items: center; margin-bottom: 1rem; }
        .actions { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; }
        .actions form { margin: 0; }
        input, select, button { font: inherit; padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px; }
        button { cursor: pointer; background: transparent; color: inherit; }
        button.primary { background: var(--good); color: white; border-color: var(--good); }
        button.danger { color: var(--bad); border-color: var(--bad); }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
        td form { margin: 0; }
        .disabled, .failure { color: var(--bad); } .enabled, .success { color: var(--good); }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
        dl.facts dd { margin: 0; }
        pre { padding: .6rem; border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; }
        """
}
