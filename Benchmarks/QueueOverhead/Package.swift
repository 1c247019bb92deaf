// swift-tools-version:6.0
// Measures PushMediaQueue's overhead per job: N no-op jobs through QueueWorker.runUntilDrained on
// SQLite and PostgreSQL. Not part of the test run; Benchmarks/run builds and runs it.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (the clone may be called anything), so the
// product is looked up under that name.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent

let package = Package(
    name: "QueueOverhead",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "QueueOverhead",
            dependencies: [
                .product(name: "PushMediaQueue", package: rootIdentity),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
