// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into `CommandSupport` before every build: the commit the sources
/// were built from (`git rev-parse`), for `authsh --version` and `authsh serve --version`;
/// `unknown` outside a git checkout. A prebuild command, since the commit changes with no
/// input file SwiftPM could watch; the file is rewritten only when the commit changed, so a
/// build with nothing new recompiles nothing.
@main struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let file = output.appending(path: "BuildInfo.swift").path
        let package = context.package.directoryURL.path
        let script = """
            mkdir -p '\(output.path)'
            commit=$(git -C '\(package)' rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            dirty=$(git -C '\(package)' status --porcelain --untracked-files=no 2>/dev/null | head -c 1)
            [ -n "$dirty" ] && commit="$commit+changes"
            text="/// Where this build came from (written by the BuildInfo plugin).
            public enum BuildInfo {
                /// The commit the sources were built from (\\`+changes\\` when they differed from it), or \\`unknown\\`.
                public static let commit = \\"$commit\\"
            }"
            [ "$(cat '\(file)' 2>/dev/null)" = "$text" ] || printf '%s\\n' "$text" > '\(file)'
            """
        return [
            .prebuildCommand(
                displayName: "Recording the commit", executable: URL(filePath: "/bin/sh"), arguments: ["-c", script],
                outputFilesDirectory: output)
        ]
    }
}
