// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushMedia",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushmedia", targets: ["pushmedia"]),
        .library(name: "PushMedia", targets: ["PushMedia"]),
        .library(name: "PushMediaModel", targets: ["PushMediaModel"]),
        .library(name: "PushPayload", targets: ["PushPayload"]),
        .library(name: "PushAttachmentPlanner", targets: ["PushAttachmentPlanner"]),
        .library(name: "PushMediaPreview", targets: ["PushMediaPreview"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
    ],
    targets: [
        // C libraries, seen from Swift only through PushMedia/Native.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // Small C functions for what Swift cannot call: vips' variadic API and FFmpeg's macros.
        .target(
            name: "CPushMediaShims",
            dependencies: ["CVips", "CFFmpeg"]
        ),

        // The shared vocabulary: manifest, profile, error codes, clip rects. Pure Swift, no I/O.
        .target(name: "PushMediaModel"),

        // Probe, pipeline steps, encoders, output store, batch processing.
        .target(
            name: "PushMedia",
            dependencies: [
                "PushMediaModel",
                "CVips",
                "CFFmpeg",
                "CPushMediaShims",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),

        // Payloads for APNs and the push vendors, built from manifest items.
        .target(name: "PushPayload", dependencies: ["PushMediaModel"]),
        // Device side: reads payloads back into attachments to download (no dependencies, so an
        // app extension can copy it alone).
        .target(name: "PushAttachmentPlanner"),
        // The preview page: every notification as iOS draws it, from a manifest.
        .target(name: "PushMediaPreview", dependencies: ["PushMediaModel"]),

        .executableTarget(
            name: "pushmedia",
            dependencies: [
                "PushMedia",
                "PushMediaModel",
                "PushPayload",
                "PushMediaPreview",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .testTarget(
            name: "PushMediaTests",
            dependencies: ["PushMedia", "PushMediaModel"]
        ),
        .testTarget(
            name: "PushPayloadTests",
            dependencies: ["PushPayload", "PushMediaModel", "PushAttachmentPlanner"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "PushMediaPreviewTests",
            dependencies: ["PushMediaPreview", "PushMediaModel"]
        ),
        .testTarget(
            name: "PushAttachmentPlannerTests",
            dependencies: ["PushAttachmentPlanner"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
