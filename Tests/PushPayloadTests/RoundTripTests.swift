import Foundation
import PushAttachmentPlanner
import PushMediaModel
import PushPayload
import Testing

/// Manifest item → payload → device-side planner → the same URLs, types and options.
@Suite("Round trip: builder → planner")
struct RoundTripTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var itemName: String
        var format: PayloadFormat
        var mode: PayloadMode
        var testDescription: String { "\(itemName) \(format.rawValue) \(mode.rawValue)" }
    }

    static let cases: [Case] = Fixtures.okItems.flatMap { name, _ in
        PayloadFormat.allCases.flatMap { format in PayloadMode.allCases.map { Case(itemName: name, format: format, mode: $0) } }
    }

    func payload(_ c: Case) throws -> Payload {
        let item = Fixtures.okItems.first { $0.0 == c.itemName }!.1
        var builder = Fixtures.builder
        builder.mode = c.mode
        return try builder.build(item, format: c.format)
    }

    func expectSame(_ plan: AttachmentPlan, _ payload: Payload, _ label: String) {
        #expect(plan.problems.isEmpty, "\(label): \(plan.problems)")
        #expect(plan.attachments.count == payload.attachments.count, "\(label)")
        for (planned, sent) in zip(plan.attachments, payload.attachments) {
            #expect(planned.url.absoluteString == sent.url, "\(label)")
            #expect(planned.typeHint == sent.typeHint, "\(label)")
            #expect(planned.fileExtension == sent.fileExtension, "\(label)")
            #expect(planned.options.thumbnailHidden == sent.thumbnailHidden, "\(label) \(sent.role)")
            #expect(
                planned.options.clippingRect
                    == sent.clippingRect.map { PushAttachmentPlanner.UnitRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
                "\(label) \(sent.role)")
            #expect(planned.options.thumbnailTime == sent.thumbnailTime, "\(label) \(sent.role)")
        }
    }

    static let source: [PayloadFormat: PayloadSource] = [
        .apns: .pushMedia, .braze: .braze, .adobe: .adobe, .airship: .airship, .onesignal: .oneSignal, .fcm: .fcm,
    ]

    @Test("the payload as sent (JSON data)", arguments: cases)
    func fromSentJSON(c: Case) throws {
        let payload = try payload(c)
        let plan = AttachmentPlanner().plan(jsonData: Data(payload.compactString.utf8))
        #expect(plan.source == Self.source[c.format])
        expectSame(plan, payload, c.testDescription)
    }

    @Test("the userInfo the device receives", arguments: cases)
    func fromDeviceUserInfo(c: Case) throws {
        let payload = try payload(c)
        let userInfo = try Fixtures.deviceUserInfo(payload)
        let plan = AttachmentPlanner().plan(userInfo: userInfo)
        #expect(plan.source == Self.source[c.format])
        expectSame(plan, payload, c.testDescription)
        #expect(plan.download.steps.map(\.url) == plan.attachments.map(\.url))
    }

    /// What reaches the device, independent of the builder's own `attachments` list.
    @Test func whatEachFormatDelivers() throws {
        func urls(_ item: Item, _ format: PayloadFormat, _ mode: PayloadMode) throws -> [String] {
            var builder = Fixtures.builder
            builder.mode = mode
            let userInfo = try Fixtures.deviceUserInfo(builder.build(item, format: format))
            return AttachmentPlanner().plan(userInfo: userInfo).attachments.map { $0.url.lastPathComponent }
        }
        #expect(try urls(Fixtures.image, .apns, .multi) == ["3f2a9c1d-expanded.jpg", "3f2a9c1d-thumbnail.jpg"])
        #expect(try urls(Fixtures.image, .airship, .multi) == ["3f2a9c1d-expanded.jpg", "3f2a9c1d-thumbnail.jpg"])
        #expect(try urls(Fixtures.image, .onesignal, .multi) == ["3f2a9c1d-expanded.jpg", "3f2a9c1d-thumbnail.jpg"])
        #expect(try urls(Fixtures.video, .onesignal, .multi) == ["7b1e04aa-media.mp4", "7b1e04aa-thumbnail.jpg"])
        for format in [PayloadFormat.braze, .adobe, .fcm] {
            #expect(try urls(Fixtures.image, format, .multi) == ["3f2a9c1d-expanded.jpg"])
            #expect(try urls(Fixtures.video, format, .multi) == ["7b1e04aa-media.mp4"])
            #expect(try urls(Fixtures.audio, format, .single) == ["c0ffee11-media.m4a"])
            #expect(try urls(Fixtures.gif, format, .single) == ["9d9d0001-expanded.gif"])
        }
    }

    @Test func multiModeHidesTheExpandedImageOnTheDevice() throws {
        for format in [PayloadFormat.apns, .airship] {
            let plan = AttachmentPlanner().plan(userInfo: try Fixtures.deviceUserInfo(Fixtures.builder.build(Fixtures.image, format: format)))
            #expect(plan.attachments.map(\.options.thumbnailHidden) == [true, false], "\(format)")
            #expect(plan.attachments[0].optionsDictionary[AttachmentOptionKey.thumbnailHidden] as? Bool == true)
        }
        var single = Fixtures.builder
        single.mode = .single
        let plan = AttachmentPlanner().plan(userInfo: try Fixtures.deviceUserInfo(single.build(Fixtures.gif, format: .apns)))
        let options = plan.attachments[0].optionsDictionary
        #expect(options[AttachmentOptionKey.thumbnailTime] as? Double == 12)
        #expect(options[AttachmentOptionKey.thumbnailClippingRect] as? [String: Double] == ["X": 0.25, "Y": 0, "Width": 0.5, "Height": 1])
        #expect(options[AttachmentOptionKey.typeHint] as? String == "com.compuserve.gif")
    }

    @Test func failedItemsPlanNothing() throws {
        for format in PayloadFormat.allCases {
            let payload = try Fixtures.builder.build(Fixtures.failed, format: format)
            let plan = AttachmentPlanner().plan(userInfo: try Fixtures.deviceUserInfo(payload))
            #expect(plan.attachments.isEmpty)
            #expect(plan.problems.first?.code == .noAttachment)
            guard case .originalContent = plan.delivery(downloaded: [:]) else {
                Issue.record("\(format): expected the original content")
                continue
            }
        }
    }

    /// The planner keeps its own copy of Apple's table (it must not depend on PushMediaModel);
    /// both must agree.
    @Test func plannerTypeTableMatchesTheModel() {
        #expect(AttachmentFileType.all.count == AttachmentType.all.count)
        for (planner, model) in zip(AttachmentFileType.all, AttachmentType.all) {
            #expect(planner.typeHint == model.typeHint)
            #expect(planner.fileExtensions == model.fileExtensions)
            #expect(planner.category.rawValue == model.category.rawValue)
            #expect(planner.maxBytes == model.maxBytes)
        }
    }
}
