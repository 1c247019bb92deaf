import Foundation
import PushMediaModel
import PushMediaVerify
import PushPayload
import Testing

/// Manifest items as `process` writes them, without running it.
enum Items {
    static func attachment(_ role: ModelAttachment.Role, _ type: AttachmentType, bytes: Int, url: String?) -> ModelAttachment {
        let file = "ab/abcdef-\(role.rawValue).\(type.fileExtensions[0])"
        return ModelAttachment(
            identifier: role.rawValue, role: role, file: file, url: url.map { $0 + file }, typeHint: type.typeHint,
            fileExtension: type.fileExtensions[0], mimeType: type.mimeType, bytes: bytes, sha256: String(repeating: "c", count: 64),
            options: ModelAttachment.Options(thumbnailHidden: false))
    }

    static func image(_ source: String, base: String? = "https://cdn.example.com/spring/", seconds: Double = 20) -> Item {
        let attachments = [
            attachment(.thumbnail, .jpeg, bytes: 10_744, url: base), attachment(.expanded, .jpeg, bytes: 61_203, url: base),
            attachment(.android, .jpeg, bytes: 48_000, url: base),
        ]
        return Item(
            source: source, kind: .image, status: .ok, attachments: attachments,
            delivery: NotificationDelivery(attachments: attachments, target: Profile.Delivery(seconds: seconds)))
    }

    static func video(_ source: String, base: String? = "https://cdn.example.com/spring/") -> Item {
        let attachments = [
            attachment(.thumbnail, .jpeg, bytes: 9_000, url: base), attachment(.expanded, .jpeg, bytes: 40_000, url: base),
            attachment(.media, .mp4, bytes: 900_000, url: base), attachment(.android, .jpeg, bytes: 35_000, url: base),
        ]
        return Item(
            source: source, kind: .video, status: .ok, attachments: attachments,
            delivery: NotificationDelivery(attachments: attachments, target: .init()))
    }

    static func failed(_ source: String) -> Item {
        .failed(source: source, error: ItemError(.unsupportedType, "not an image"))
    }
}

@Suite("PublishedURL: the URLs a payload names, and who downloads each")
struct PublishedURLTests {
    let limits = VerifyLimits()

    @Test func imageItem() throws {
        let urls = try PublishedURL.urls(of: Items.image("a.jpg", seconds: 12.5), builder: PayloadBuilder(), limits: limits)
        #expect(urls.map(\.role) == [.thumbnail, .expanded, .android])
        #expect(urls[0].rules == [.iOS(seconds: 12.5)])
        #expect(urls[1].rules == [.iOS(seconds: 12.5)])
        #expect(urls[2].rules == [.fcmImage(seconds: 5)])
        #expect(urls[2].url == "https://cdn.example.com/spring/ab/abcdef-android.jpg")
        #expect(urls[1].deadline == 12.5)
        #expect(urls[0].url == "https://cdn.example.com/spring/ab/abcdef-thumbnail.jpg")
        #expect(urls[0].expected.bytes == 10_744 && urls[0].expected.mimeType == "image/jpeg")
    }

    @Test("a movie: iOS gets the movie and the thumbnail, FCM's Android SDK the Android image of the poster; no payload names the expanded poster")
    func videoItem() throws {
        let urls = try PublishedURL.urls(of: Items.video("v.mp4"), builder: PayloadBuilder(), limits: VerifyLimits(iOSSeconds: 8, fcmSeconds: 2))
        #expect(urls.map(\.role) == [.thumbnail, .media, .android])
        #expect(urls.map(\.rules) == [[.iOS(seconds: 8)], [.iOS(seconds: 8)], [.fcmImage(seconds: 2)]])
    }

    @Test("with the web: the thumbnail and the Android image (the web icon and image) are held to the browser's 90 s too")
    func webPlatform() throws {
        let web = VerifyLimits(webSeconds: VerifyLimits.chromiumWebSeconds)
        let urls = try PublishedURL.urls(of: Items.image("a.jpg", seconds: 12.5), builder: PayloadBuilder(), limits: web)
        #expect(urls.map(\.role) == [.thumbnail, .expanded, .android])
        #expect(urls.map(\.rules) == [[.iOS(seconds: 12.5), .web(seconds: 90)], [.iOS(seconds: 12.5)], [.fcmImage(seconds: 5), .web(seconds: 90)]])
        #expect(urls[2].deadline == 90, "the fetch waits for the longest cut-off")
        #expect(DownloadRule.web(seconds: 90).name == "web")
        let video = try PublishedURL.urls(of: Items.video("v.mp4"), builder: PayloadBuilder(), limits: web)
        #expect(video.first { $0.role == .media }?.rules == [.iOS(seconds: Items.video("v.mp4").deliveryTargetSeconds)])
    }

    @Test func failedItemsPublishNothing() throws {
        #expect(try PublishedURL.urls(of: Items.failed("x.jpg"), builder: PayloadBuilder(), limits: limits).isEmpty)
    }

    @Test("--base-url overrides the manifest's URLs; without either, verify cannot run")
    func baseURL() throws {
        let urls = try PublishedURL.urls(
            of: Items.image("a.jpg", base: nil), builder: PayloadBuilder(baseURL: "https://staging.example.com/x"), limits: limits)
        #expect(
            urls.map(\.url) == [
                "https://staging.example.com/x/ab/abcdef-thumbnail.jpg", "https://staging.example.com/x/ab/abcdef-expanded.jpg",
                "https://staging.example.com/x/ab/abcdef-android.jpg",
            ])
        #expect(throws: PublishedURLError.noURL(source: "a.jpg", role: .thumbnail)) {
            try PublishedURL.urls(of: Items.image("a.jpg", base: nil), builder: PayloadBuilder(), limits: limits)
        }
        #expect(throws: PublishedURLError.self) {
            try PublishedURL.urls(of: Items.image("a.jpg"), builder: PayloadBuilder(baseURL: "http://cdn.example.com/"), limits: limits)
        }
        // An http URL in the manifest is published as it is, and refused when checked.
        let plain = try PublishedURL.urls(of: Items.image("a.jpg", base: "http://cdn.example.com/"), builder: PayloadBuilder(), limits: limits)
        #expect(plain.first?.url == "http://cdn.example.com/ab/abcdef-thumbnail.jpg")
    }

    @Test("the delivery target comes from the item's delivery; the default profile's without one")
    func deliveryTarget() {
        #expect(Items.image("a.jpg", seconds: 7).deliveryTargetSeconds == 7)
        var bare = Items.image("a.jpg")
        bare.delivery = nil
        #expect(bare.deliveryTargetSeconds == Profile.Delivery().seconds)
    }
}

@Suite("ManifestItemReader: manifests read an item at a time")
struct ManifestItemReaderTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pushmedia-verify-reader-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func readAll(_ url: URL) throws -> [Item] {
        let reader = try ManifestItemReader(url: url)
        var items: [Item] = []
        while let item = try reader.next() { items.append(item) }
        return items
    }

    @Test("both forms ManifestWriter writes, streamed, and Manifest.jsonData's pretty form, give the same items")
    func forms() throws {
        let folder = try Self.folder()
        let items = (0..<5).map { Items.image("p\($0).jpg") } + [Items.failed("z.jpg"), Items.video("v.mp4")]
        let writer = try ManifestWriter(directory: folder, profile: .default)
        for item in items { try writer.add(item) }
        try writer.finish()
        #expect(try Self.readAll(folder.appendingPathComponent("manifest.ndjson")) == items)
        #expect(try Self.readAll(folder.appendingPathComponent("manifest.json")) == items)
        let pretty = folder.appendingPathComponent("pretty.json")
        try Manifest(profile: .default, items: items).jsonData().write(to: pretty)
        #expect(try Self.readAll(pretty) == Manifest(profile: .default, items: items).items)
    }

    @Test func emptyManifests() throws {
        let folder = try Self.folder()
        try ManifestWriter(directory: folder, profile: .default).finish()
        #expect(try Self.readAll(folder.appendingPathComponent("manifest.ndjson")).isEmpty)
        #expect(try Self.readAll(folder.appendingPathComponent("manifest.json")).isEmpty)
        let pretty = folder.appendingPathComponent("pretty.json")
        try Manifest(profile: .default, items: []).jsonData().write(to: pretty)
        #expect(try Self.readAll(pretty).isEmpty)
    }

    @Test("a line that is not an item names its line")
    func badLine() throws {
        let file = try Self.folder().appendingPathComponent("m.ndjson")
        let good = String(decoding: try Items.image("a.jpg").jsonData(), as: UTF8.self)
        try Data((good + "\n\n" + good + "\n{\"nope\":1}\n").utf8).write(to: file)
        let reader = try ManifestItemReader(url: file)
        #expect(try reader.next()?.source == "a.jpg")
        #expect(try reader.next()?.source == "a.jpg")
        do {
            _ = try reader.next()
            Issue.record("read a line that is not an item")
        } catch let error as Manifest.NDJSONError {
            #expect(error.line == 4)
        }
    }

    @Test("lines longer than the reader's chunk, and a last line without a newline")
    func longLines() throws {
        let file = try Self.folder().appendingPathComponent("lines.txt")
        let long = String(repeating: "x", count: 3 << 20)
        try Data("a\n\(long)\nb".utf8).write(to: file)
        let lines = try FileLineReader(url: file)
        #expect(try lines.next() == Data("a".utf8))
        #expect(try lines.next()?.count == long.utf8.count)
        #expect(try lines.next() == Data("b".utf8))
        #expect(try lines.next() == nil)
        #expect(lines.lineNumber == 3)
    }
}
