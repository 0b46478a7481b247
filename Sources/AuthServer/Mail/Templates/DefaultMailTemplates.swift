// SPDX-License-Identifier: Apache-2.0
/// The mails the server writes when no template file overrides them (``MailTemplates``).
enum DefaultMailTemplates {
    static let sources: [String: String] = [
        "confirm.subject": "{{subject}}",
        "confirm.text": """
        Hello,

        {{#link}}Please confirm your email address for {{app}} by opening this link:

        {{link}}
        {{/link}}{{^link}}Please confirm your email address for {{app}} with this token:

        token: {{token}}
        tokenId: {{tokenId}}
        {{/link}}
        It works once, for {{minutes}} minutes. If you did not sign up, you can ignore this mail.

        """,
        "confirm.html": html(
            intro: "Please confirm your email address for {{app}}.", action: "Confirm my email",
            after: "If you did not sign up, you can ignore this mail."),
        "reset.subject": "{{subject}}",
        "reset.text": """
        Hello,

        {{#link}}Someone asked to reset the password of {{email}} for {{app}}. To choose a new password, open this link:

        {{link}}
        {{/link}}{{^link}}Someone asked to reset the password of {{email}} for {{app}}. Reset it with this token:

        token: {{token}}
        tokenId: {{tokenId}}
        {{/link}}
        It works once, for {{minutes}} minutes. If it was not you, ignore this mail: your password stays as it is.

        """,
        "reset.html": html(
            intro: "Someone asked to reset the password of {{email}} for {{app}}.", action: "Choose a new password",
            after: "If it was not you, ignore this mail: your password stays as it is."),
        "signin.subject": "{{subject}}",
        "signin.text": """
        Hello,

        {{#link}}To sign in to {{app}} as {{email}}, open this link:

        {{link}}
        {{/link}}{{^link}}To sign in to {{app}} as {{email}}, use this token:

        token: {{token}}
        tokenId: {{tokenId}}
        {{/link}}
        It works once, for {{minutes}} minutes. If you did not ask to sign in, you can ignore this mail.

        """,
        "signin.html": html(
            intro: "To sign in to {{app}} as {{email}}, open this link.", action: "Sign in",
            after: "If you did not ask to sign in, you can ignore this mail."),
        "changeemail.subject": "{{subject}}",
        "changeemail.text": """
        Hello,

        {{#link}}Someone asked to change the email of an account of {{app}} to {{newEmail}}. To confirm it, open this link:

        {{link}}
        {{/link}}{{^link}}Someone asked to change the email of an account of {{app}} to {{newEmail}}. Confirm it with this token:

        token: {{token}}
        tokenId: {{tokenId}}
        {{/link}}
        It works once, for {{minutes}} minutes. If it was not you, ignore this mail: nothing changes.

        """,
        "changeemail.html": html(
            intro: "Someone asked to change the email of an account of {{app}} to {{newEmail}}.", action: "Confirm my new email",
            after: "If it was not you, ignore this mail: nothing changes."),
        "recoveremail.subject": "{{subject}}",
        "recoveremail.text": """
        Hello,

        The email of your account of {{app}} was changed from {{email}} to {{newEmail}}.
        {{#link}}If it was not you, open this link to change it back, then change your password:

        {{link}}
        {{/link}}{{^link}}If it was not you, change it back with this token, then change your password:

        token: {{token}}
        tokenId: {{tokenId}}
        {{/link}}
        It works once, for {{minutes}} minutes.

        """,
        "recoveremail.html": html(
            intro: "The email of your account of {{app}} was changed from {{email}} to {{newEmail}}. If it was not you, change it back.",
            action: "Change my email back", after: "Then change your password."),
        "notice.subject": "Someone tried to sign up with your address",
        "notice.text": """
        Hello,

        Someone tried to create an account for {{app}} with this address, which already has one. If it was you, \
        log in, or reset your password if you forgot it. If not, you can ignore this mail.

        """,
        "notice.html": """
        <!DOCTYPE html>
        <html><body style="font-family: sans-serif; line-height: 1.5; color: #222;">
        <p>Hello,</p>
        <p>Someone tried to create an account for {{app}} with this address, which already has one. If it was you, log in, \
        or reset your password if you forgot it. If not, you can ignore this mail.</p>
        </body></html>

        """,
        "plugin.subject": "{{subject}}",
        "plugin.text": "{{body}}",
        "plugin.html": """
        <!DOCTYPE html>
        <html><body style="font-family: sans-serif; line-height: 1.5; color: #222;">
        <pre style="font-family: inherit; white-space: pre-wrap;">{{body}}</pre>
        </body></html>

        """,
    ]

    /// An HTML mail with a button for the link, or the token when there is no link.
    private static func html(intro: String, action: String, after: String) -> String {
        """
        <!DOCTYPE html>
        <html><body style="font-family: sans-serif; line-height: 1.5; color: #222;">
        <p>Hello,</p>
        <p>\(intro)</p>
        {{#link}}<p><a href="{{link}}" style="display: inline-block; padding: 10px 18px; background: #1a5fb4; color: #fff; \
        text-decoration: none; border-radius: 4px;">\(action)</a></p>
        <p style="font-size: 90%;">Or copy this link: {{link}}</p>{{/link}}{{^link}}<p>token: <code>{{token}}</code><br>
        tokenId: <code>{{tokenId}}</code></p>{{/link}}
        <p>It works once, for {{minutes}} minutes. \(after)</p>
        </body></html>

        """
    }
}
