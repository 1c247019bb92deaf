import Foundation
import PushAttachmentPlanner
import Testing

/// Each vendor's payload, written by hand as the vendor documents or delivers it.
@Suite("Planner: formats")
struct PlannerFormatTests {
    let planner = AttachmentPlanner()
    let aps: [String: Any] = ["alert": ["title": "Hi", "body": "There"], "mutable-content": 1]

    @Test func pushMedia() throws {
        let json = #"""
            {"aps":{"alert":{"body":"b"},"mutable-content":1},
             "pm":{"v":1,"a":[{"u":"https://cdn.example.com/e.jpg","t":"public.jpeg","h":1,"c":[0.25,0,0.5,1]},
                              {"u":"https://cdn.example.com/m.mp4","t":"public.mpeg-4","s":2.5},
                              {"u":"https://cdn.example.com/t.png","t":"public.png","h":false}]}}
            """#
        let plan = planner.plan(jsonData: Data(json.utf8))
        #expect(plan.source == .pushMedia)
        #expect(plan.problems.isEmpty)
        #expect(
            plan.attachments.map(\.url.absoluteString) == [
                "https://cdn.example.com/e.jpg", "https://cdn.example.com/m.mp4", "https://cdn.example.com/t.png",
            ])
        #expect(plan.attachments.map(\.typeHint) == ["public.jpeg", "public.mpeg-4", "public.png"])
        #expect(plan.attachments.map(\.fileExtension) == ["jpg", "mp4", "png"])
        #expect(plan.attachments.map(\.options.thumbnailHidden) == [true, false, false])
        #expect(plan.attachments[0].options.clippingRect == UnitRect(x: 0.25, y: 0, width: 0.5, height: 1))
        #expect(plan.attachments[1].options.thumbnailTime == 2.5)
        #expect(plan.attachments.map(\.maxBytes) == [10_000_000, 50_000_000, 10_000_000])
        #expect(Set(plan.attachments.map(\.identifier)).count == 3)
    }

    @Test func optionsUnderAppleKeyNames() throws {
        let plan = planner.plan(userInfo: [
            "pm": ["v": 1, "a": [["u": "https://cdn.example.com/e.jpg", "t": "public.jpeg", "h": true, "c": [0.1, 0.2, 0.3, 0.4], "s": 3]]]
        ])
        let options = try #require(plan.attachments.first).optionsDictionary
        #expect(
            Set(options.keys) == [
                "UNNotificationAttachmentOptionsTypeHintKey", "UNNotificationAttachmentOptionsThumbnailHiddenKey",
                "UNNotificationAttachmentOptionsThumbnailClippingRectKey", "UNNotificationAttachmentOptionsThumbnailTimeKey",
            ])
        #expect(options["UNNotificationAttachmentOptionsTypeHintKey"] as? String == "public.jpeg")
        #expect(options["UNNotificationAttachmentOptionsThumbnailHiddenKey"] as? Bool == true)
        #expect(
            options["UNNotificationAttachmentOptionsThumbnailClippingRectKey"] as? [String: Double] == [
                "X": 0.1, "Y": 0.2, "Width": 0.3, "Height": 0.4,
            ])
        #expect(options["UNNotificationAttachmentOptionsThumbnailTimeKey"] as? Double == 3)
    }

    @Test func braze() {
        let plan = planner.plan(userInfo: ["aps": aps, "ab": ["att": ["url": "https://braze.example/img?id=7", "type": "jpeg"]]])
        #expect(plan.source == .braze)
        #expect(plan.problems.isEmpty)
        // The type comes from `type`, since the URL has no extension.
        #expect(plan.attachments.map(\.typeHint) == ["public.jpeg"])
        #expect(plan.attachments.map(\.fileExtension) == ["jpeg"])
        #expect(plan.attachments.first?.fileName == "braze.jpeg")
    }

    @Test func adobe() {
        let plan = planner.plan(userInfo: ["aps": aps, "adb_media": "https://ajo.example/media/clip.MP4"])
        #expect(plan.source == .adobe)
        #expect(plan.attachments.map(\.typeHint) == ["public.mpeg-4"])
        #expect(plan.attachments.map(\.fileExtension) == ["mp4"])
    }

    @Test func airshipDeviceShapeWithThumbnailID() {
        let plan = planner.plan(userInfo: [
            "aps": aps,
            "com.urbanairship.media_attachment": [
                "urls": [["url": "https://ua.example/e.jpg", "url_id": "expanded"], ["url": "https://ua.example/t.jpg", "url_id": "thumbnail"]],
                "thumbnail_id": "thumbnail",
                "options": ["time": 1.5],
            ],
        ])
        #expect(plan.source == .airship)
        #expect(plan.problems.isEmpty)
        #expect(plan.attachments.map(\.identifier) == ["expanded", "thumbnail"])
        #expect(plan.attachments.map(\.options.thumbnailHidden) == [true, false])
        // Airship's options are shared by every attachment.
        #expect(plan.attachments.map(\.options.thumbnailTime) == [1.5, 1.5])
    }

    @Test func airshipURLStringOrArrayAndCrop() {
        let single = planner.plan(userInfo: [
            "com.urbanairship.media_attachment": [
                "url": "https://ua.example/e.png",
                "options": ["crop": ["x": 0.25, "y": 0.0, "width": 0.5, "height": 1.0], "hidden": false],
            ]
        ])
        #expect(
            single.attachments.first?.options
                == AttachmentOptions(thumbnailHidden: false, clippingRect: UnitRect(x: 0.25, y: 0, width: 0.5, height: 1)))
        let array = planner.plan(userInfo: ["media_attachment": ["url": ["https://ua.example/a.jpg", "https://ua.example/b.gif"]]])
        #expect(array.attachments.map(\.typeHint) == ["public.jpeg", "com.compuserve.gif"])
        #expect(array.attachments.map(\.options.thumbnailHidden) == [false, false])
    }

    @Test func airshipAPIBody() {
        let plan = planner.plan(userInfo: [
            "device_types": ["ios"],
            "notification": ["alert": "x", "ios": ["media_attachment": ["url": "https://ua.example/e.jpg"]]],
        ])
        #expect(plan.source == .airship)
        #expect(plan.attachments.count == 1)
    }

    @Test func oneSignalOrdersByID() {
        let device = planner.plan(userInfo: ["aps": aps, "att": ["thumbnail": "https://os.example/t.jpg", "expanded": "https://os.example/e.jpg"]])
        #expect(device.source == .oneSignal)
        #expect(device.attachments.map(\.identifier) == ["expanded", "thumbnail"])
        let numeric = planner.plan(userInfo: [
            "ios_attachments": ["10": "https://os.example/c.jpg", "2": "https://os.example/b.jpg", "1": "https://os.example/a.jpg"]
        ])
        #expect(numeric.attachments.map(\.identifier) == ["1", "2", "10"])
    }

    @Test func fcmShapes() {
        let device = planner.plan(userInfo: ["aps": aps, "fcm_options": ["image": "https://fcm.example/i.png"], "gcm.message_id": "1"])
        #expect(device.source == .fcm)
        #expect(device.attachments.map(\.typeHint) == ["public.png"])
        let body = planner.plan(userInfo: ["message": ["apns": ["fcm_options": ["image": "https://fcm.example/i.jpg"]]]])
        #expect(body.source == .fcm)
        #expect(body.attachments.count == 1)
    }

    @Test func identifiersAreMadeUnique() {
        let plan = planner.plan(userInfo: [
            "com.urbanairship.media_attachment": [
                "urls": [["url": "https://a.example/1.jpg", "url_id": "x"], ["url": "https://a.example/2.jpg", "url_id": "x"]]
            ]
        ])
        #expect(plan.attachments.map(\.identifier) == ["x", "x-2"])
    }

    @Test func plainPushHasNoAttachment() {
        let plan = planner.plan(userInfo: ["aps": aps])
        #expect(plan.source == nil)
        #expect(plan.attachments.isEmpty)
        #expect(plan.problems.map(\.code) == [.noAttachment])
    }
}
