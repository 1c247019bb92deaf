// swift-tools-version:6.0
import PackageDescription

// `PUSHMEDIA_SANITIZE_C=1` (scripts/test sets it, so CI's test build has it) builds every C and
// C++ target of PushMedia, the code that reads untrusted bytes (CGIFCodec: the GIF decoder,
// writer, LZW coder and re-packing pass; CReduce: the JPEG decode and Lanczos reduce; CResample;
// CVipsShims; CFFmpegShims: the FFmpeg loops) and the face search's own loops over decoded pixels
// (CFaceDetect: the cell map, the proxy, the HOG features, the filters; dlib's templates compiled
// there too, libdlib.a not), with AddressSanitizer and UndefinedBehaviorSanitizer, and links
// ASan's runtime (which carries UBSan's) into every program. Swift code, the face model and the libraries stay as they are. Any report stops the
// process; scripts/test fails when one was written (docs/security.md). Release builds never set it.
let sanitizeC = Context.environment["PUSHMEDIA_SANITIZE_C"] == "1"
let sanitizerCFlags: [CSetting] =
    sanitizeC
    ? [.unsafeFlags(["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"])] : []
let sanitizerCXXFlags: [CXXSetting] =
    sanitizeC
    ? [.unsafeFlags(["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"])] : []
let sanitizerLinkFlags: [LinkerSetting] = sanitizeC ? [.unsafeFlags(["-sanitize=address"])] : []

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
        .library(name: "PushMediaQueue", targets: ["PushMediaQueue"]),
        .library(name: "PushMediaFetch", targets: ["PushMediaFetch"]),
        .library(name: "PushMediaWorker", targets: ["PushMediaWorker"]),
        .library(name: "PushMediaObjectStore", targets: ["PushMediaObjectStore"]),
        .library(name: "PushMediaVerify", targets: ["PushMediaVerify"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
    ],
    targets: [
        // C libraries, seen from Swift only through PushMedia/Native (and the worker's process
        // control). Each C target has one header (include/<target>.h) and depends only on those
        // listed; none includes another's private headers.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // FFmpeg's headers only: no pkg-config, whose flags would link the libraries. They are
        // opened on first use (CFFmpegShims' ffmpeg_library.c); Debian installs the headers in the
        // compiler's default multiarch include path.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // The one form a deadline reaches C in (an instant on CLOCK_MONOTONIC), for every target
        // whose work stops at one.
        .target(name: "CDeadline", cSettings: sanitizerCFlags, linkerSettings: sanitizerLinkFlags),
        // Which input pixels make an output pixel of a reduction, and their weights: one table
        // for the face search's proxy and the still decode's reduce (no libvips, so the face
        // search needs nothing else).
        .target(name: "CResample", cSettings: sanitizerCFlags, linkerSettings: [.linkedLibrary("m")] + sanitizerLinkFlags),
        // libvips for Swift: its variadic operations, its set-up, the six loaders, the savers,
        // frames made when read. GModule (part of GLib, already loaded with libvips) opens
        // libvips' HEIF module.
        .target(
            name: "CVipsShims",
            dependencies: ["CVips", "CDeadline"],
            cSettings: sanitizerCFlags,
            linkerSettings: [.linkedLibrary("gmodule-2.0")] + sanitizerLinkFlags
        ),
        // The still decode's Lanczos3 reductions, and still JPEGs decoded by libjpeg
        // (libjpeg-turbo, already loaded with libvips) and reduced as they come.
        .target(
            name: "CReduce",
            dependencies: ["CVips", "CResample", "CDeadline"],
            cSettings: sanitizerCFlags,
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("m")] + sanitizerLinkFlags
        ),
        // PushMedia's GIF codec: decoder, writer, the two joined, and the lossless re-packing
        // pass, on a shared core (gif_core.h: buffer, blocks, LZW, colour lookup). giflib reads
        // and writes for the re-packing pass; libimagequant (already loaded with libvips) makes
        // the writer's palettes.
        .target(
            name: "CGIFCodec",
            dependencies: ["CVips", "CReduce", "CDeadline"],
            cSettings: sanitizerCFlags,
            linkerSettings: [.linkedLibrary("gif"), .linkedLibrary("imagequant")] + sanitizerLinkFlags
        ),
        // FFmpeg for Swift: the libraries opened on first use, its macros, the one way a media
        // file is opened, and the poster-frame, remux and transcode loops.
        .target(
            name: "CFFmpegShims",
            dependencies: ["CFFmpeg", "CDeadline"],
            cSettings: sanitizerCFlags,
            linkerSettings: sanitizerLinkFlags
        ),
        // Frontal faces: dlib's HOG detector (its model is compiled in) behind a plain C header,
        // built twice (face_search.h): for any CPU, and for AVX2 + FMA, picked at run time.
        // dlib is linked statically (`libdlib.a` from libdlib-dev) and compiled without BLAS and
        // LAPACK, so the runtime needs no package for it: no libdlib19.1, none of the 97 MB
        // libdlib-data it depends on, no liblapack3 or libblas3.
        .target(
            name: "CFaceDetect",
            dependencies: ["CResample"],
            // dlib's detector is templates compiled here: unoptimised (debug builds) a search takes
            // seconds instead of milliseconds, so this target is always optimised.
            cxxSettings: [.unsafeFlags(["-O2"])] + sanitizerCXXFlags,
            linkerSettings: [.linkedLibrary(":libdlib.a")] + sanitizerLinkFlags
        ),
        // Faces the HOG search misses: dlib's CNN face detector (mmod_human_face_detector, CC0;
        // its weights compiled in, face_net_model.h). A target of its own: dlib's dnn templates
        // take minutes to compile. libdlib.a's dnn code calls BLAS; face_net_blas.cpp provides the
        // few routines it calls, so no BLAS library is linked. Always optimised, as CFaceDetect.
        .target(
            name: "CFaceNet",
            dependencies: ["CFaceDetect", "CDeadline"],
            cxxSettings: [.unsafeFlags(["-O2"])] + sanitizerCXXFlags,
            linkerSettings: [.linkedLibrary(":libdlib.a")] + sanitizerLinkFlags
        ),
        // The worker's process plumbing: the fork server of crash containment, malloc's arenas.
        .target(name: "CProcessControl", cSettings: sanitizerCFlags, linkerSettings: sanitizerLinkFlags),
        // Entry points for the tests alone (checks against giflib, dlib and full scans; test
        // images): only test targets depend on it, so the product does not ship them. Its face
        // comparisons compile dlib's templates as CFaceDetect and CFaceNet do, optimised alike.
        .target(
            name: "CPushMediaTestSupport",
            dependencies: ["CVips", "CGIFCodec", "CFaceDetect", "CFaceNet"],
            path: "Tests/CPushMediaTestSupport",
            cSettings: sanitizerCFlags,
            cxxSettings: [.unsafeFlags(["-O2"])] + sanitizerCXXFlags,
            linkerSettings: [.linkedLibrary("gif")] + sanitizerLinkFlags
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
                "CDeadline",
                "CVipsShims",
                "CReduce",
                "CGIFCodec",
                "CFFmpegShims",
                "CFaceDetect",
                "CFaceNet",
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

        // Durable media jobs: embedded SQLite (GRDB) or PostgreSQL, one contract for both.
        .target(
            name: "PushMediaQueue",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // URL sources: streamed downloads with size, time and address (SSRF) limits.
        .target(
            name: "PushMediaFetch",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Outputs on S3-compatible object storage: SigV4 signing, `--out s3://…`, uploads.
        .target(
            name: "PushMediaObjectStore",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Media jobs on the queue: the job handler, the batch runner (`process`, and the library
        // entry point), campaigns (enqueue, drain, manifest), metrics.
        .target(
            name: "PushMediaWorker",
            dependencies: [
                "PushMedia",
                "PushMediaModel",
                "PushMediaPreview",
                "PushMediaQueue",
                "PushMediaFetch",
                "PushMediaObjectStore",
                "CProcessControl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),

        // `pushmedia verify`: fetches a manifest's published URLs as the phones do and judges them.
        .target(
            name: "PushMediaVerify",
            dependencies: [
                "PushMediaModel",
                "PushPayload",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The command line (`process`, `worker`, …): the commands of `pushmedia`, and of the tests'
        // `pushmedia-testing`, which runs them with the tests' item hooks.
        .target(
            name: "PushMediaCLI",
            dependencies: [
                "PushMedia",
                "PushMediaModel",
                "PushPayload",
                "PushMediaPreview",
                "PushMediaQueue",
                "PushMediaWorker",
                "PushMediaObjectStore",
                "PushMediaVerify",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The shipped binary: `main` of the command line, with no hooks.
        .executableTarget(name: "pushmedia", dependencies: ["PushMediaCLI"]),

        // Test support, never in a product. PushMediaTesting: seeded randomness, the fixtures and
        // built programs, the item gate's test side; no dependencies, so any test target may use
        // it. PushMediaQueueTesting: the manual queue clock.
        .target(name: "PushMediaTesting", path: "Tests/PushMediaTesting"),
        .target(
            name: "PushMediaQueueTesting",
            dependencies: ["PushMediaQueue", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "Tests/PushMediaQueueTesting"
        ),
        // `pushmedia-testing`: the same commands as `pushmedia` with the tests' item hooks (the
        // gate, crashes, spins, runaway allocations) installed, for the worker tests.
        .executableTarget(
            name: "pushmedia-testing",
            dependencies: ["PushMediaCLI", "PushMedia", "PushMediaTesting"],
            path: "Tests/pushmedia-testing"
        ),

        .testTarget(
            name: "PushMediaTests",
            dependencies: ["PushMedia", "PushMediaModel", "PushMediaTesting", "CPushMediaTestSupport", "CProcessControl"]
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
            dependencies: ["PushAttachmentPlanner", "PushMediaTesting"]
        ),
        .testTarget(
            name: "PushMediaQueueTests",
            dependencies: [
                "PushMediaQueue",
                "PushMediaQueueTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PushMediaFetchTests",
            dependencies: [
                "PushMediaFetch",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PushMediaWorkerTests",
            dependencies: [
                "PushMediaWorker", "PushMediaQueue", "PushMediaModel", "PushMedia", "PushMediaObjectStore", "PushMediaTesting",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PushMediaVerifyTests",
            dependencies: [
                "PushMediaVerify", "PushMediaModel", "PushMediaObjectStore", "PushMediaTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PushMediaObjectStoreTests",
            dependencies: ["PushMediaObjectStore", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
