import Foundation
import PushAttachmentPlanner
import Testing

@Suite("Planner: downloads and delivery")
struct DownloadPlanTests {
    let multi: [AnyHashable: Any] = [
        "pm": [
            "v": 1,
            "a": [
                ["u": "https://cdn.example.com/e.jpg", "t": "public.jpeg", "h": 1],
                ["u": "https://cdn.example.com/t.jpg", "t": "public.jpeg"],
            ],
        ]
    ]

    @Test func standardPolicyFitsTheExtensionBudget() {
        let plan = AttachmentPlanner().plan(userInfo: multi)
        #expect(plan.download.overallDeadline == 25)
        #expect(plan.download.perDownloadTimeout == 15)
        #expect(plan.download.concurrent)
        #expect(plan.download.steps.map(\.index) == [0, 1])
        #expect(plan.download.steps.map(\.fileName) == ["0-pm-0.jpg", "1-pm-1.jpg"])
        #expect(plan.download.steps.map(\.maxBytes) == [10_000_000, 10_000_000])
        #expect(plan.download.steps.allSatisfy { $0.timeout <= plan.download.overallDeadline })
    }

    @Test func perDownloadTimeoutNeverExceedsTheDeadline() {
        let policy = DownloadPolicy(extensionTimeLimit: 10, safetyMargin: 4, perDownloadTimeout: 30, maxAttachments: 2)
        let plan = AttachmentPlanner(policy: policy).plan(userInfo: multi)
        #expect(plan.download.overallDeadline == 6)
        #expect(plan.download.perDownloadTimeout == 6)
        #expect(plan.download.steps.map(\.timeout) == [6, 6])
    }

    @Test func maxBytesFollowAppleLimitsPerType() {
        let plan = AttachmentPlanner().plan(userInfo: [
            "pm": [
                "v": 1,
                "a": [
                    ["u": "https://x.example/a.mp4"], ["u": "https://x.example/b.mp3"], ["u": "https://x.example/c.gif"],
                ],
            ]
        ])
        #expect(plan.download.steps.map(\.maxBytes) == [50_000_000, 5_000_000, 10_000_000])
        let audio = plan.download.steps[1]
        #expect(audio.accepts(byteCount: 5_000_000))
        #expect(!audio.accepts(byteCount: 5_000_001))
        #expect(!audio.accepts(byteCount: 0))
    }

    @Test func deliveryKeepsOrderAndDropsFailures() {
        let plan = AttachmentPlanner().plan(userInfo: multi)
        guard case .attachments(let both) = plan.delivery(downloaded: [0: 90_000, 1: 20_000]) else {
            Issue.record("expected attachments")
            return
        }
        #expect(both.map(\.url.lastPathComponent) == ["e.jpg", "t.jpg"])
        #expect(both.map(\.options.thumbnailHidden) == [true, false])
    }

    @Test func thumbnailLostShowsTheExpandedImageInstead() {
        let plan = AttachmentPlanner().plan(userInfo: multi)
        guard case .attachments(let kept) = plan.delivery(downloaded: [0: 90_000]) else {
            Issue.record("expected attachments")
            return
        }
        #expect(kept.map(\.url.lastPathComponent) == ["e.jpg"])
        #expect(kept[0].options.thumbnailHidden == false)
    }

    @Test func oversizedOrEmptyDownloadsAreDropped() {
        let plan = AttachmentPlanner().plan(userInfo: multi)
        guard case .attachments(let kept) = plan.delivery(downloaded: [0: 10_000_001, 1: 100]) else {
            Issue.record("expected attachments")
            return
        }
        #expect(kept.map(\.url.lastPathComponent) == ["t.jpg"])
        #expect(
            plan.delivery(downloaded: [0: 0, 1: 20_000_000])
                == .originalContent(reason: "no attachment was downloaded in time and within its size limit"))
    }

    @Test func nothingDownloadedFallsBackToTheOriginal() {
        let plan = AttachmentPlanner().plan(userInfo: multi)
        guard case .originalContent(let reason) = plan.delivery(downloaded: [:]) else {
            Issue.record("expected the original content")
            return
        }
        #expect(reason.contains("no attachment"))
        let empty = AttachmentPlanner().plan(userInfo: ["aps": ["alert": "x"]])
        guard case .originalContent(let why) = empty.delivery(downloaded: [0: 5]) else {
            Issue.record("expected the original content")
            return
        }
        #expect(why.contains("no attachment key"))
    }

    @Test func fileNamesAreSafe() {
        let plan = AttachmentPlanner().plan(userInfo: ["att": ["../../etc/pässwd": "https://x.example/a.png"]])
        #expect(plan.download.steps.first?.fileName == "0-______etc_p_sswd.png")
    }
}
