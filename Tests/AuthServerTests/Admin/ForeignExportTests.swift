// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Testing

@testable import AuthServer

/// The parts of `import --from` that the command's test (`ForeignImportCommandTests`, with the
/// fixtures of each system) does not reach one by one.
@Suite struct ForeignExportTests {
    @Test func exportTimesAreReadWithTheirOffsets() {
        // Expected values from Python's datetime.fromisoformat(...).timestamp().
        #expect(ForeignExport.seconds("2024-03-01T10:00:00.123456+00:00") == 1_709_287_200)
        #expect(ForeignExport.seconds("2024-01-05T10:00:00.123Z") == 1_704_448_800)
        #expect(ForeignExport.seconds("2024-03-01 12:00:00+02") == 1_709_287_200)
        #expect(ForeignExport.seconds("1999-12-31T23:59:59-05:30") == 946_704_599)
        #expect(ForeignExport.seconds("2024-13-01T00:00:00Z") == nil)
        #expect(ForeignExport.seconds("2024-03-01T10:00:00+00:00 trailing") == nil)
        #expect(ForeignExport.seconds("yesterday") == nil)
    }

    @Test func providerNamesBecomeAuthshProviders() {
        #expect(ForeignExport.providerType("google-oauth2") == "oauth2-google")
        #expect(ForeignExport.providerType("Google") == "oauth2-google")
        #expect(ForeignExport.providerType("SignInWithApple") == "oauth2-apple")
        #expect(ForeignExport.providerType("github") == "oauth2-github")
        #expect(ForeignExport.providerType("my-oidc") == "oauth2-my-oidc")
        #expect(ForeignExport.providerType("a/b") == nil)
        #expect(ForeignExport.providerType("") == nil)
    }

    /// A credential as Keycloak before 12 exported it (the fields in the credential itself):
    /// PBKDF2-SHA256 of "legacy-pass", 1,000 rounds (Python's hashlib.pbkdf2_hmac).
    @Test func aKeycloakCredentialOfBefore12IsRead() throws {
        let user: EJSONDocument = [
            "id": "k1", "email": "old@example.com",
            "credentials": [
                [
                    "type": "password", "algorithm": "pbkdf2-sha256", "hashIterations": 1000, "salt": "MDEyMzQ1Njc4OWFiY2RlZg==",
                    "hashedSaltedValue": "ND221UI45GHoXxqy0zST2OqpkZ01U0jtGEBs+SG6HE34DpCXHGY7K8z1pdtrJs8lJF6FAAqeV8qT+vrbwmB5hQ==",
                ]
            ],
        ]
        var why: String?
        let found = try ForeignExport.keycloak.user(user, now: 0, leftOut: &why)
        let account = try #require(found?.account)
        let stored = try #require(ImportedPasswordHash(account.passwordHash))
        #expect(stored.verify("legacy-pass") && !stored.verify("legacy-pas"))
    }

    /// A hash Keycloak's own Pbkdf2PasswordHashProvider made (quoted by a Keycloak extension's
    /// test, novareto's HashingTest): "test", PBKDF2-SHA256, 27,500 iterations, a 64-byte key.
    @Test func aKeycloakHashVerifiesAsKeycloakDoes() throws {
        let user: EJSONDocument = [
            "id": "k2", "email": "kc@example.com",
            "credentials": [
                [
                    "type": "password",
                    "secretData":
                        #"{"value":"/bVkHA4G/VOskjaCgNYyTz1BhgD+9X8bxCNEPGGpnDCJbWHDXIW0G8IlSBhDdJsXTjrXt/7yQguBwJ3sxSmSKA==","salt":"lZtleWv1DeEcNIr8MTzdeg==","additionalParameters":{}}"#,
                    "credentialData": #"{"hashIterations":27500,"algorithm":"pbkdf2-sha256","additionalParameters":{}}"#,
                ]
            ],
        ]
        var why: String?
        let account = try #require(try ForeignExport.keycloak.user(user, now: 0, leftOut: &why)?.account)
        #expect(PasswordHasher.verifyNow("test", account.passwordHash) && !PasswordHasher.verifyNow("tesT", account.passwordHash))
        #expect(PasswordHasher.isWithinCostLimits(account.passwordHash))
    }

    /// Auth0's hashes file names a user by `_id`'s ObjectId, or by `alt_id` when Auth0 took the
    /// user's id from an import; a user no line names has no password.
    @Test func auth0HashesFindTheirUsers() throws {
        var passwords = Auth0Passwords()
        try passwords.add(["_id": .objectId(try #require(ObjectId(hex: "5f0000000000000000000001"))), "passwordHash": "$2b$10$a"])
        try passwords.add([
            "_id": .objectId(try #require(ObjectId(hex: "5f0000000000000000000002"))), "alt_id": "legacy-7", "passwordHash": "$2b$10$b",
        ])
        #expect(passwords.hash(userId: "auth0|5f0000000000000000000001", email: "x@example.com") == "$2b$10$a")
        #expect(passwords.hash(userId: "auth0|legacy-7", email: "y@example.com") == "$2b$10$b")
        #expect(passwords.hash(userId: "auth0|5f0000000000000000000003", email: "z@example.com") == nil)
        #expect(throws: ForeignExport.Refused.self) { try passwords.add(["email": "no-hash@example.com"]) }
    }
}
