import Foundation
import PushMediaModel
import PushPayload
import Testing

/// Exact-shape checks: which keys each format has, at every level, and their values.
@Suite("Payload shapes")
struct PayloadShapeTests {
    func parse(_ payload: Payload) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(payload.compactString.utf8)) as! [String: Any]
    }

    func keys(_ value: Any?) -> Set<String> {
        Set((value as? [String: Any])?.keys.map { $0 } ?? [])
    }

    func build(_ format: PayloadFormat, _ mode: PayloadMode) throws -> [String: Any] {
        try build(Fixtures.image, format, mode)
    }

    func build(_ item: Item, _ format: PayloadFormat, _ mode: PayloadMode) throws -> [String: Any] {
        var builder = Fixtures.builder
        builder.mode = mode
        return try parse(builder.build(item, format: format))
    }

    let thumbURL = Fixtures.base + "3f2a9c1d-thumbnail.jpg"
    let expandedURL = Fixtures.base + "3f2a9c1d-expanded.jpg"
    let androidURL = Fixtures.base + "3f2a9c1d-android.jpg"

    @Test func apnsMulti() throws {
        let json = try build(.apns, .multi)
        #expect(keys(json) == ["aps", "pm"])
        let aps = json["aps"] as! [String: Any]
        #expect(keys(aps) == ["alert", "mutable-content"])
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["alert"] as? [String: String] == ["title": "Spring sale", "body": "Everything 30% off until Sunday"])
        let pm = json["pm"] as! [String: Any]
        #expect(keys(pm) == ["v", "a"])
        #expect(pm["v"] as? Int == 1)
        let list = pm["a"] as! [[String: Any]]
        #expect(list.count == 2)
        // Expanded first, hidden, without thumbnail options; then the visible square thumbnail.
        #expect(keys(list[0]) == ["u", "t", "h"])
        #expect(list[0]["u"] as? String == expandedURL)
        #expect(list[0]["t"] as? String == "public.jpeg")
        #expect(list[0]["h"] as? Int == 1)
        #expect(keys(list[1]) == ["u", "t"])
        #expect(list[1]["u"] as? String == thumbURL)
    }

    @Test func apnsSingleCarriesRoundedClipRect() throws {
        let list = try build(.apns, .single)["pm"].flatMap { ($0 as? [String: Any])?["a"] as? [[String: Any]] }!
        #expect(list.count == 1)
        #expect(keys(list[0]) == ["u", "t", "c"])
        #expect(list[0]["u"] as? String == expandedURL)
        #expect(list[0]["c"] as? [Double] == [0.3167, 0, 0.5, 1])
    }

    @Test func apnsVideoSendsTheMovieWithItsTime() throws {
        let single = try build(Fixtures.video, .apns, .single)
        let list = (single["pm"] as! [String: Any])["a"] as! [[String: Any]]
        #expect(list.count == 1)
        #expect(list[0]["u"] as? String == Fixtures.base + "7b1e04aa-media.mp4")
        #expect(list[0]["t"] as? String == "public.mpeg-4")
        #expect(list[0]["s"] as? Double == 2.5)
        #expect(list[0]["c"] == nil)
        let multi = (try build(Fixtures.video, .apns, .multi)["pm"] as! [String: Any])["a"] as! [[String: Any]]
        #expect(multi.map { $0["u"] as? String } == [Fixtures.base + "7b1e04aa-media.mp4", Fixtures.base + "7b1e04aa-thumbnail.jpg"])
        #expect(multi.map { $0["h"] as? Int } == [1, nil])
    }

    @Test func braze() throws {
        func messages(_ json: [String: Any]) -> (apple: [String: Any], android: [String: Any]) {
            let m = json["messages"] as? [String: Any]
            return (m?["apple_push"] as? [String: Any] ?? [:], m?["android_push"] as? [String: Any] ?? [:])
        }
        let json = try build(.braze, .multi)
        #expect(keys(json) == ["messages"])
        let (apple, android) = messages(json)
        #expect(keys(apple) == ["alert", "asset_url", "asset_file_type", "mutable_content"])
        #expect(apple["alert"] as? [String: String] == ["title": "Spring sale", "body": "Everything 30% off until Sunday"])
        #expect(apple["asset_url"] as? String == expandedURL && apple["asset_file_type"] as? String == "jpg")
        #expect(apple["mutable_content"] as? Bool == true)
        #expect(keys(android) == ["alert", "title", "extra", "push_icon_image_url"])
        #expect(android["alert"] as? String == "Everything 30% off until Sunday" && android["title"] as? String == "Spring sale")
        #expect(android["extra"] as? [String: String] == ["appboy_image_url": androidURL])
        #expect(android["push_icon_image_url"] as? String == thumbURL)
        let video = messages(try build(Fixtures.video, .braze, .multi)).apple
        #expect(video["asset_url"] as? String == Fixtures.base + "7b1e04aa-media.mp4" && video["asset_file_type"] as? String == "mp4")
        let audio = messages(try build(Fixtures.audio, .braze, .single)).apple
        #expect(audio["asset_file_type"] as? String == "m4a")
    }

    @Test func adobe() throws {
        func parts(_ json: [String: Any]) -> (apns: [String: Any], data: [String: Any]) {
            let m = json["message"] as? [String: Any]
            return (
                (m?["apns"] as? [String: Any])?["payload"] as? [String: Any] ?? [:],
                (m?["android"] as? [String: Any])?["data"] as? [String: Any] ?? [:]
            )
        }
        let json = try build(.adobe, .single)
        #expect(keys(json) == ["message"])
        let (apns, data) = parts(json)
        #expect(keys(apns) == ["aps", "adb_media"])
        #expect(apns["adb_media"] as? String == expandedURL)
        #expect((apns["aps"] as? [String: Any])?["mutable-content"] as? Int == 1)
        #expect(
            data as? [String: String] == [
                "adb_title": "Spring sale", "adb_body": "Everything 30% off until Sunday", "adb_image": androidURL,
            ])
        #expect(parts(try build(Fixtures.audio, .adobe, .single)).apns["adb_media"] as? String == Fixtures.base + "c0ffee11-media.m4a")
    }

    @Test func airshipMulti() throws {
        let json = try build(.airship, .multi)
        #expect(keys(json) == ["device_types", "notification"])
        #expect(json["device_types"] as? [String] == ["ios", "android"])
        let notification = json["notification"] as! [String: Any]
        #expect(keys(notification) == ["alert", "ios", "android"])
        let android = notification["android"] as! [String: Any]
        #expect(keys(android) == ["title", "style"])
        #expect(android["style"] as? [String: String] == ["type": "big_picture", "big_picture": androidURL])
        #expect(notification["alert"] as? String == "Everything 30% off until Sunday")
        let ios = notification["ios"] as! [String: Any]
        #expect(keys(ios) == ["title", "mutable_content", "media_attachment"])
        #expect(ios["mutable_content"] as? Bool == true)
        let media = ios["media_attachment"] as! [String: Any]
        #expect(keys(media) == ["urls", "thumbnail_id"])
        #expect(media["thumbnail_id"] as? String == "thumbnail")
        let urls = media["urls"] as! [[String: String]]
        #expect(urls == [["url": expandedURL, "url_id": "expanded"], ["url": thumbURL, "url_id": "thumbnail"]])
    }

    @Test func airshipSingle() throws {
        let media = try build(.airship, .single)["notification"]
            .flatMap { (($0 as? [String: Any])?["ios"] as? [String: Any])?["media_attachment"] as? [String: Any] }!
        #expect(keys(media) == ["url", "options"])
        #expect(media["url"] as? String == expandedURL)
        let options = media["options"] as! [String: Any]
        #expect(keys(options) == ["crop"])
        #expect(options["crop"] as? [String: Double] == ["x": 0.3167, "y": 0, "width": 0.5, "height": 1])
        let video = try build(Fixtures.video, .airship, .single)["notification"]
            .flatMap { (($0 as? [String: Any])?["ios"] as? [String: Any])?["media_attachment"] as? [String: Any] }!
        #expect((video["options"] as? [String: Any])?["time"] as? Double == 2.5)
    }

    @Test func oneSignal() throws {
        let json = try build(.onesignal, .multi)
        #expect(keys(json) == ["contents", "headings", "ios_attachments", "mutable_content", "big_picture", "large_icon"])
        // Android: the 2:1 image expanded; collapsed, OneSignal's SDK shows large_icon (the square thumbnail).
        #expect(json["big_picture"] as? String == androidURL)
        #expect(json["large_icon"] as? String == thumbURL)
        #expect(json["contents"] as? [String: String] == ["en": "Everything 30% off until Sunday"])
        #expect(json["headings"] as? [String: String] == ["en": "Spring sale"])
        #expect(json["ios_attachments"] as? [String: String] == ["expanded": expandedURL, "thumbnail": thumbURL])
        #expect(json["mutable_content"] as? Bool == true)
        #expect(try build(.onesignal, .single)["ios_attachments"] as? [String: String] == ["expanded": expandedURL])
    }

    @Test func fcm() throws {
        let json = try build(.fcm, .multi)
        #expect(keys(json) == ["message"])
        let message = json["message"] as! [String: Any]
        #expect(keys(message) == ["notification", "apns", "android"])
        #expect(message["notification"] as? [String: String] == ["title": "Spring sale", "body": "Everything 30% off until Sunday"])
        let apns = message["apns"] as! [String: Any]
        #expect(keys(apns) == ["payload", "fcm_options"])
        #expect((apns["payload"] as? [String: Any])?["aps"] as? [String: Int] == ["mutable-content": 1])
        #expect(apns["fcm_options"] as? [String: String] == ["image": expandedURL])
        #expect((message["android"] as? [String: Any])?["notification"] as? [String: String] == ["image": androidURL])
        // A movie goes to iOS; Android gets the Android image of its poster frame.
        let video = try build(Fixtures.video, .fcm, .single)["message"] as! [String: Any]
        #expect((video["apns"] as? [String: Any])?["fcm_options"] as? [String: String] == ["image": Fixtures.base + "7b1e04aa-media.mp4"])
        #expect((video["android"] as? [String: Any])?["notification"] as? [String: String] == ["image": Fixtures.base + "7b1e04aa-android.jpg"])
    }

    @Test("failed items give a text-only payload with a warning", arguments: PayloadFormat.allCases)
    func failedItemIsTextOnly(format: PayloadFormat) throws {
        let payload = try Fixtures.builder.build(Fixtures.failed, format: format)
        #expect(payload.attachments.isEmpty)
        #expect(payload.warnings.contains { $0.contains("corrupt_input") && $0.contains("text-only") })
        let text = payload.compactString
        #expect(!text.contains("https://"))
        #expect(!text.contains("mutable"))
        #expect(text.contains("Everything 30% off until Sunday"))
    }

    @Test func titleOnlyAndBodyOnly() throws {
        let titleOnly = try parse(PayloadBuilder(title: "Hi").build(Fixtures.image, format: .apns))
        #expect((titleOnly["aps"] as? [String: Any])?["alert"] as? [String: String] == ["title": "Hi"])
        let bodyOnly = try parse(PayloadBuilder(body: "Yo").build(Fixtures.image, format: .onesignal))
        #expect(bodyOnly["contents"] as? [String: String] == ["en": "Yo"])
        #expect(bodyOnly["headings"] == nil)
    }

    @Test func noTextIsAnError() {
        #expect(throws: PayloadError.missingAlertText) { try PayloadBuilder().build(Fixtures.image, format: .apns) }
        #expect(throws: PayloadError.missingAlertText) { try PayloadBuilder(title: "", body: "").build(Fixtures.image, format: .fcm) }
    }

    @Test func warningsNameWhatIsLost() throws {
        let braze = try Fixtures.builder.build(Fixtures.image, format: .braze)
        #expect(braze.warnings.contains { $0.contains("one URL") })
        var single = Fixtures.builder
        single.mode = .single
        let adobe = try single.build(Fixtures.image, format: .adobe)
        #expect(adobe.warnings.contains { $0.contains("clipping rect") })
        let oneSignal = try Fixtures.builder.build(Fixtures.image, format: .onesignal)
        #expect(oneSignal.warnings.contains { $0.contains("ThumbnailHidden") })
        #expect(try Fixtures.builder.build(Fixtures.image, format: .apns).warnings.isEmpty)
    }
}
