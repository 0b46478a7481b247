// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackagePlugin

/// Embeds `docs/openapi.json`, the HTTP contract, in `AuthServer` as `OpenAPIDocument.json`
/// at build time, so that the server serves the document of the repository it was built from
/// and no copy of it is kept by hand.
@main struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "docs/openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding docs/openapi.json", executable: try context.tool(named: "embed-file").url,
                arguments: [
                    input.path, output.path, "OpenAPIDocument",
                    "The HTTP contract of the client, admin and dev APIs (OpenAPI 3.1, `docs/openapi.json`), served at `/api/openapi.json`.",
                ],
                inputFiles: [input], outputFiles: [output])
        ]
    }
}
