// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "authsh",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "authsh", targets: ["authsh"]),
        .library(name: "Lua", targets: ["Lua"]),
    ],
    targets: [
        // C: Lua 5.4 from Debian, and GNU readline.
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),
        // C: the trampoline, allocator, kill switch and coroutine forwarding (all that raises or yields).
        .target(name: "LuaShims", dependencies: ["CLua"]),
        // Swift: the safe Lua host.
        .target(name: "Lua", dependencies: ["CLua", "LuaShims"]),
        // The command: REPL, batch runner.
        .executableTarget(name: "authsh", dependencies: ["Lua", "CReadline"]),
        // Benchmark of the Lua host, run by scripts/bench.
        .executableTarget(name: "lua-bench", dependencies: ["Lua"]),
        .testTarget(name: "LuaTests", dependencies: ["Lua"]),
        .testTarget(name: "authshTests", dependencies: ["authsh"]),
    ],
    swiftLanguageModes: [.v6]
)
