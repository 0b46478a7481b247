// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Every recipe in scripts/recipes runs in CI, so none of them rots.
@Suite(.binary, .timeLimit(.minutes(5))) struct RecipeTests {
    static let recipes = [
        "signup", "reset-by-email", "reset-by-function", "link-anonymous", "switch-users", "api-keys", "load", "github",
        "account-exists", "reauthenticate", "hooks", "totp",
        "passkey-and-totp",
    ]

    @Test(arguments: recipes)
    func recipeRunsTwiceOnOneDataDirectory(_ name: String) async throws {
        let data = try Binary.temporaryDirectory()
        let path = Binary.repository + "/scripts/recipes/\(name).lua"
        let arguments = name == "load" ? ["20"] : []
        for run in 1...2 {
            let r = try await Binary.run(["--data", data, path] + arguments, directory: Binary.repository)
            #expect(r.status == 0, "run \(run): \(r.stderr)")
            #expect(r.stdout.hasSuffix("ok: \(name)\n"), "run \(run): \(r.stdout)")
        }
    }

    /// The recipes that use nothing only one protocol has run over Firebase's API too
    /// (`--firebase`), unchanged. The others show App Services' own flows (a login refused
    /// before confirmation, an email account linked to an anonymous user after its
    /// confirmation, a hook that refuses at login, sessions, recovery codes counted, functions,
    /// API keys, passkeys).
    static let firebaseRecipes = ["reset-by-email", "switch-users", "github", "account-exists", "load"]

    @Test(arguments: firebaseRecipes)
    func recipeRunsOverFirebase(_ name: String) async throws {
        let data = try Binary.temporaryDirectory()
        let arguments = name == "load" ? ["20"] : []
        let r = try await Binary.run(
            ["--data", data, "--firebase", "demo-project", Binary.repository + "/scripts/recipes/\(name).lua"] + arguments,
            directory: Binary.repository)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("ok: \(name)\n"), "\(r.stdout)")
    }

    /// The recipes' spec files (scripts/recipes/spec: the migrateUser hook of
    /// plugins/migrate.lua, alone and through a real login) pass under `authsh test`.
    @Test func recipeSpecsPassUnderAuthshTest() async throws {
        let r = try await Binary.run(
            ["test", "--plugins", "plugins", "-o", "plainTerminal", "scripts/recipes/spec"], directory: Binary.repository)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("1 file, 5 successes / 0 failures / 0 errors"), "\(r.stdout)")
    }

    @Test func everyRecipeIsTested() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Binary.repository + "/scripts/recipes")
        #expect(Set(files.filter { $0.hasSuffix(".lua") }.map { String($0.dropLast(4)) }) == Set(RecipeTests.recipes))
    }
}
