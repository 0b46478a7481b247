// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "authsh",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "authsh", targets: ["authsh"]),
        .executable(name: "authsh-server", targets: ["authsh-server"]),
        .library(name: "Lua", targets: ["Lua"]),
        .library(name: "AuthProtocol", targets: ["AuthProtocol"]),
        .library(name: "AuthServer", targets: ["AuthServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.36.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // C: Lua 5.4 from Debian, GNU readline, and Argon2 (the reference implementation).
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // C: libxcrypt, for bcrypt hashes brought in by `authsh admin import`.
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // C: the trampoline, allocator, kill switch and coroutine forwarding (all that raises or yields).
        .target(name: "LuaShims", dependencies: ["CLua"]),
        // Swift: the safe Lua host.
        .target(name: "Lua", dependencies: ["CLua", "LuaShims"]),
        // What client and server share: EJSON, routes, error codes, token claims, what may travel without TLS.
        .target(
            name: "AuthProtocol",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // EJSON <-> Lua values, shared by the plugin sandbox and the Lua bindings.
        .target(name: "LuaEJSON", dependencies: ["Lua", "AuthProtocol"]),
        // The App Services-compatible server.
        // Build-time embedding of docs/openapi.json in AuthServer.
        .executableTarget(name: "embed-file", path: "Plugins/EmbedFile"),
        .plugin(name: "EmbedOpenAPI", capability: .buildTool(), dependencies: ["embed-file"], path: "Plugins/EmbedOpenAPI"),
        // What the server keeps: the store's protocols by area, and SQLStore over SQLite (GRDB)
        // and PostgreSQL (postgres-nio). It needs nothing of the server's: the compiler holds it.
        .target(
            name: "AuthStorage",
            dependencies: [
                "AuthProtocol", "CommandSupport",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .target(
            name: "AuthServer",
            dependencies: [
                "AuthProtocol", "AuthStorage", "CommandSupport", "Lua", "LuaEJSON", "CArgon2", "CCrypt",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ], plugins: ["EmbedOpenAPI"]),
        // The async client of the App Services API.
        .target(
            name: "AuthClient",
            dependencies: [
                "AuthProtocol", "CommandSupport", "Spawn", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The client as Lua bindings: `app`, `credentials`, `auth`, the short verbs.
        .target(name: "AuthScript", dependencies: ["AuthClient", "AuthProtocol", "Lua", "LuaEJSON"]),
        // C: Linux calls Swift's Glibc module leaves out (pipe2, posix_spawn's closefrom).
        .target(name: "CLinux"),
        // How authsh starts a program of its own (a browser, the embedded server, qrencode):
        // nothing of this process but standard input, output and error goes to it.
        .target(name: "Spawn", dependencies: ["CLinux"]),
        // What both commands and the libraries under them share: files (RegularFile: every file
        // a person names), paths, output (libc only).
        // The commit a build came from, for --version.
        .plugin(name: "BuildInfo", capability: .buildTool(), path: "Plugins/BuildInfo"),
        .target(name: "CommandSupport", plugins: ["BuildInfo"]),
        // The command: the Lua host, the REPL and the batch runner. It holds no server: `serve`,
        // `admin` and `audit` run authsh-server, and so does the embedded dev server (as a child
        // process), so that starting it costs what a Lua host costs (README: Start-up).
        // Release builds link it without PIE (scripts/release-build says why).
        .executableTarget(name: "authsh", dependencies: ["Lua", "CReadline", "AuthProtocol", "AuthScript", "CommandSupport", "CLinux", "Spawn"]),
        // The server's commands: `serve`, `admin`, `audit`, and `embedded` (the dev server
        // `authsh` starts). It sits next to `authsh`, which runs it.
        .executableTarget(
            name: "authsh-server",
            dependencies: [
                "AuthServer", "AuthStorage", "AuthClient", "AuthProtocol", "CommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Benchmarks, run by scripts/bench; their sources are in Benchmarks/, apart from the product's.
        .executableTarget(name: "lua-bench", dependencies: ["Lua"], path: "Benchmarks/lua-bench"),
        .executableTarget(name: "argon2-bench", dependencies: ["AuthServer"], path: "Benchmarks/argon2-bench"),
        .executableTarget(name: "ejson-bench", dependencies: ["AuthProtocol"], path: "Benchmarks/ejson-bench"),
        .executableTarget(name: "plugin-bench", dependencies: ["AuthServer"], path: "Benchmarks/plugin-bench"),
        .executableTarget(
            name: "factors-bench",
            dependencies: [
                "AuthProtocol", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ], path: "Benchmarks/factors-bench"),
        .executableTarget(
            name: "client-bench",
            dependencies: [
                "AuthClient", .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ], path: "Benchmarks/client-bench"),
        .testTarget(name: "LuaTests", dependencies: ["Lua", "TestSupport"]),
        .testTarget(
            name: "AuthProtocolTests",
            dependencies: [
                "AuthProtocol", .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(name: "LuaEJSONTests", dependencies: ["LuaEJSON", "Lua", "AuthProtocol"]),
        // What the tests share: scratch directories, child processes, a private PostgreSQL cluster.
        .target(
            name: "TestSupport",
            dependencies: [
                "AuthProtocol", "AuthServer", "AuthStorage", "CLinux", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ], path: "Tests/TestSupport"),
        .testTarget(
            name: "AuthServerTests",
            dependencies: [
                "AuthServer", "AuthStorage", "AuthProtocol", "TestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(
            name: "AuthClientTests",
            dependencies: [
                "AuthClient", "AuthServer", "AuthStorage", "AuthProtocol", "TestSupport", .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .testTarget(
            name: "authshTests",
            dependencies: [
                "authsh", "authsh-server", "AuthScript", "Lua", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
