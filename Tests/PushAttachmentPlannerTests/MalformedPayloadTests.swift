import Foundation
import PushAttachmentPlanner
import Testing

/// Malformed payloads give no attachment and a reason.
@Suite("Planner: malformed payloads")
struct MalformedPayloadTests {
    let planner = AttachmentPlanner()

    func entry(_ fields: [String: Any]) -> [AnyHashable: Any] {
        ["pm": ["v": 1, "a": [fields]]]
    }

    nonisolated(unsafe) static let cases: [(String, [String: Any], PlanProblem.Code, String)] = [
        ("missing URL", ["t": "public.jpeg"], .missingKey, "pm.a[0].u"),
        ("URL is a number", ["u": 42], .wrongType, "pm.a[0].u"),
        ("http URL", ["u": "http://cdn.example.com/a.jpg"], .insecureURL, "pm.a[0].u"),
        ("relative URL", ["u": "/a.jpg"], .invalidURL, "pm.a[0].u"),
        ("URL without host", ["u": "https:///a.jpg"], .invalidURL, "pm.a[0].u"),
        ("file URL", ["u": "file:///etc/passwd.jpg"], .insecureURL, "pm.a[0].u"),
        ("URL with a space", ["u": "https://cdn.example.com/a b.jpg"], .invalidURL, "pm.a[0].u"),
        ("unknown UTI", ["u": "https://cdn.example.com/a.heic", "t": "public.heic"], .unsupportedType, "pm.a[0].t"),
        ("UTI is a number", ["u": "https://cdn.example.com/a.jpg", "t": 1], .wrongType, "pm.a[0].t"),
        ("no type at all", ["u": "https://cdn.example.com/a"], .unsupportedType, "pm.a[0].u"),
        ("unknown extension", ["u": "https://cdn.example.com/a.webp"], .unsupportedType, "pm.a[0].u"),
        ("rect too wide", ["u": "https://cdn.example.com/a.jpg", "c": [0.6, 0, 0.5, 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect negative", ["u": "https://cdn.example.com/a.jpg", "c": [-0.1, 0, 0.5, 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect over 1", ["u": "https://cdn.example.com/a.jpg", "c": [0, 0, 1.5, 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect empty", ["u": "https://cdn.example.com/a.jpg", "c": [0, 0, 0, 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect three numbers", ["u": "https://cdn.example.com/a.jpg", "c": [0, 0, 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect with a string", ["u": "https://cdn.example.com/a.jpg", "c": [0, 0, "1", 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect infinite", ["u": "https://cdn.example.com/a.jpg", "c": [0, 0, Double.infinity, 1]], .invalidClipRect, "pm.a[0].c"),
        ("rect is an object", ["u": "https://cdn.example.com/a.jpg", "c": ["X": 0]], .invalidClipRect, "pm.a[0].c"),
        ("hidden is a string", ["u": "https://cdn.example.com/a.jpg", "h": "yes"], .wrongType, "pm.a[0].h"),
        ("hidden is 2", ["u": "https://cdn.example.com/a.jpg", "h": 2], .wrongType, "pm.a[0].h"),
        ("negative time", ["u": "https://cdn.example.com/a.mp4", "s": -1], .invalidThumbnailTime, "pm.a[0].s"),
        ("NaN time", ["u": "https://cdn.example.com/a.mp4", "s": Double.nan], .invalidThumbnailTime, "pm.a[0].s"),
        ("time is a string", ["u": "https://cdn.example.com/a.mp4", "s": "2"], .invalidThumbnailTime, "pm.a[0].s"),
    ]

    @Test("bad pm entries", arguments: cases.map(\.0))
    func badEntry(name: String) {
        let (_, fields, code, path) = Self.cases.first { $0.0 == name }!
        let plan = planner.plan(userInfo: entry(fields))
        #expect(plan.attachments.isEmpty)
        #expect(plan.problems.count == 1)
        #expect(plan.problems.first?.code == code)
        #expect(plan.problems.first?.path == path)
        #expect(plan.download.steps.isEmpty)
        #expect(plan.delivery(downloaded: [0: 100]) != .attachments([]))
    }

    @Test func badEntryDoesNotSpoilGoodOnes() {
        let plan = planner.plan(userInfo: [
            "pm": [
                "v": 1,
                "a": [
                    ["u": "http://cdn.example.com/a.jpg"],
                    ["u": "https://cdn.example.com/b.jpg", "h": 1],
                    "not an object",
                ],
            ]
        ])
        #expect(plan.attachments.map(\.url.lastPathComponent) == ["b.jpg"])
        #expect(plan.problems.map(\.code) == [.insecureURL, .wrongType])
        #expect(plan.problems.map(\.path) == ["pm.a[0].u", "pm.a[2]"])
    }

    @Test func badEnvelopes() {
        let cases: [([AnyHashable: Any], PlanProblem.Code, String)] = [
            (["pm": "x"], .wrongType, "pm"),
            (["pm": ["a": []]], .missingKey, "pm.v"),
            (["pm": ["v": 2, "a": []]], .unsupportedVersion, "pm.v"),
            (["pm": ["v": "1", "a": []]], .unsupportedVersion, "pm.v"),
            (["pm": ["v": 1]], .missingKey, "pm.a"),
            (["pm": ["v": 1, "a": ["u": "https://x.example/a.jpg"]]], .wrongType, "pm.a"),
            (["pm": ["v": 1, "a": []]], .noAttachment, "(root)"),
            (["ab": ["att": "https://x.example/a.jpg"]], .wrongType, "ab.att"),
            (["ab": ["att": ["type": "jpg"]]], .missingKey, "ab.att.url"),
            (["ab": ["att": ["url": "https://x.example/a", "type": "exe"]]], .unsupportedType, "ab.att.type"),
            (["adb_media": ["https://x.example/a.jpg"]], .wrongType, "adb_media"),
            (["adb_media": "http://x.example/a.jpg"], .insecureURL, "adb_media"),
            (["att": ["id": 5]], .wrongType, "att.id"),
            (["att": "https://x.example/a.jpg"], .wrongType, "att"),
            (["fcm_options": ["image": NSNull()]], .wrongType, "fcm_options.image"),
            (["com.urbanairship.media_attachment": ["options": ["time": 1]]], .missingKey, "com.urbanairship.media_attachment.url"),
            (
                [
                    "com.urbanairship.media_attachment": [
                        "url": "https://x.example/a.jpg", "options": ["crop": ["x": 0.9, "y": 0, "width": 0.5, "height": 1]],
                    ]
                ],
                .invalidClipRect, "com.urbanairship.media_attachment.options.crop"
            ),
            (
                ["com.urbanairship.media_attachment": ["url": "https://x.example/a.jpg", "options": ["crop": ["x": 0, "y": 0]]]],
                .invalidClipRect, "com.urbanairship.media_attachment.options.crop"
            ),
            (
                ["com.urbanairship.media_attachment": ["url": "https://x.example/a.jpg", "options": ["time": -3]]],
                .invalidThumbnailTime, "com.urbanairship.media_attachment.options.time"
            ),
            (
                ["com.urbanairship.media_attachment": ["url": "https://x.example/a.jpg", "options": "none"]],
                .wrongType, "com.urbanairship.media_attachment.options"
            ),
            (["com.urbanairship.media_attachment": ["urls": [["url_id": "a"]]]], .wrongType, "com.urbanairship.media_attachment.urls[0]"),
            (
                ["com.urbanairship.media_attachment": ["url": "https://x.example/a.jpg", "thumbnail_id": 3]],
                .wrongType, "com.urbanairship.media_attachment.thumbnail_id"
            ),
        ]
        for (userInfo, code, path) in cases {
            let plan = planner.plan(userInfo: userInfo)
            #expect(plan.attachments.isEmpty, "\(userInfo)")
            #expect(plan.problems.first?.code == code, "\(userInfo): \(plan.problems)")
            #expect(plan.problems.first?.path == path, "\(userInfo): \(plan.problems)")
        }
    }

    @Test func notJSONOrNotADictionary() {
        let garbage = planner.plan(jsonData: Data("{\"pm\": ".utf8))
        #expect(garbage.problems.map(\.code) == [.malformedPayload])
        let array = planner.plan(jsonData: Data("[1,2]".utf8))
        #expect(array.problems.map(\.code) == [.malformedPayload])
        #expect(array.problems.first?.message.contains("array") == true)
    }

    @Test func tooManyAttachmentsAreCut() {
        let list = (0..<5).map { ["u": "https://x.example/\($0).jpg"] }
        let plan = planner.plan(userInfo: ["pm": ["v": 1, "a": list]])
        #expect(plan.attachments.count == 3)
        #expect(plan.attachments.map(\.url.lastPathComponent) == ["0.jpg", "1.jpg", "2.jpg"])
        #expect(plan.problems.map(\.code) == [.tooManyAttachments])
    }
}
