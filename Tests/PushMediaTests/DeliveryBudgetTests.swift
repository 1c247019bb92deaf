import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// The notification's delivery budget: the pure split into per-attachment budgets, and real items
/// whose attachments together arrive in time on the profile's link.
@Suite("Delivery budget per notification")
struct DeliveryBudgetTests {
    @Test("defaults: 1 Mbit/s, 20 s for the notification (2.5 MB), 5 s for an image (625 KB, never over 1 MiB)")
    func defaults() throws {
        let target = Profile.default.delivery
        #expect(target.notificationBytes == 2_500_000 && target.imageBytes == 625_000)
        #expect(target.downloadSeconds(2_500_000) == 20)
        var fast = target
        fast.linkBitsPerSecond = 100_000_000
        #expect(fast.imageBytes == Profile.Delivery.fcmImageLimit, "FCM's 1 MiB caps an image on any link")

        let budget = DeliveryBudget(profile: .default, carriesMedia: false)
        #expect(budget.image(.thumbnail, animated: false, spent: 0) == 150_000)
        #expect(budget.image(.expanded, animated: false, spent: 150_000) == 625_000)
        #expect(budget.image(.expanded, animated: true, spent: 100_000) == 625_000)
        let media = DeliveryBudget(profile: .default, carriesMedia: true)
        #expect(media.media(.movie, spent: 200_000) == 2_300_000)
        #expect(media.media(.audio, spent: 0) == 2_500_000)
    }

    @Test("for any target and per-type budgets, the attachments made in order fit the notification and every other limit")
    func property() {
        var rng = SeededRandom(seed: 14)
        for _ in 0..<2_000 {
            var profile = Profile()
            profile.delivery.linkBitsPerSecond = Int.random(in: 8_000...50_000_000, using: &rng)
            profile.delivery.seconds = Double.random(in: 1...60, using: &rng)
            profile.delivery.imageSeconds = Double.random(in: 0.1...profile.delivery.seconds, using: &rng)
            profile.budgets.thumbnail = Int.random(in: 1_000...2_000_000, using: &rng)
            profile.budgets.expanded = Int.random(in: 1_000...10_000_000, using: &rng)
            profile.budgets.animated = Int.random(in: 1_000...10_000_000, using: &rng)
            profile.budgets.movie = Int.random(in: 10_000...50_000_000, using: &rng)
            profile.budgets.audio = Int.random(in: 10_000...5_000_000, using: &rng)
            let carriesMedia = Bool.random(using: &rng)
            let animated = Bool.random(using: &rng)
            let plan = DeliveryBudget(profile: profile, carriesMedia: carriesMedia)
            let target = profile.delivery

            // Each attachment takes anything up to its budget.
            let thumbnailBudget = plan.image(.thumbnail, animated: animated, spent: 0)
            let thumbnail = Int.random(in: 0...max(0, thumbnailBudget), using: &rng)
            let expandedBudget = plan.image(.expanded, animated: animated, spent: thumbnail)
            let expanded = Int.random(in: 0...max(0, expandedBudget), using: &rng)
            let category: AttachmentType.Category = Bool.random(using: &rng) ? .movie : .audio
            let mediaBudget = carriesMedia ? plan.media(category, spent: thumbnail + expanded) : 0

            #expect(thumbnail + expanded + mediaBudget <= target.notificationBytes)
            #expect(thumbnailBudget <= (animated ? profile.budgets.animated : profile.budgets.thumbnail))
            #expect(expandedBudget <= (animated ? profile.budgets.animated : profile.budgets.expanded))
            #expect(max(thumbnailBudget, expandedBudget) <= min(target.imageBytes, AttachmentType.maxBytes(for: .image)))
            #expect(min(thumbnailBudget, expandedBudget, mediaBudget) >= 0)
            if carriesMedia {
                let typeBudget = category == .movie ? profile.budgets.movie : profile.budgets.audio
                #expect(mediaBudget <= min(typeBudget, AttachmentType.maxBytes(for: category)))
                // The images leave the movie or audio at least half of the notification.
                #expect(mediaBudget >= min(typeBudget, AttachmentType.maxBytes(for: category), target.notificationBytes / 2))
            } else if thumbnail <= target.notificationBytes / 3 {
                // A thumbnail leaves the expanded image at least two thirds.
                let cap = min(animated ? profile.budgets.animated : profile.budgets.expanded, target.imageBytes)
                #expect(expandedBudget >= min(cap, target.notificationBytes * 2 / 3))
            }
        }
    }

    @Test("a profile sets the target from JSON; bad values are refused with their names")
    func profileKeys() throws {
        let profile = try ProfileLoader.parse(Data(#"{"delivery": {"linkBitsPerSecond": 256000, "seconds": 10}}"#.utf8))
        #expect(profile.delivery.linkBitsPerSecond == 256_000 && profile.delivery.seconds == 10 && profile.delivery.imageSeconds == 5)
        #expect(profile.delivery.notificationBytes == 320_000 && profile.delivery.imageBytes == 160_000)
        #expect(profile.problems.isEmpty)
        var bad = Profile()
        bad.delivery.imageSeconds = 30
        bad.delivery.linkBitsPerSecond = 10
        #expect(bad.problems.contains { $0.contains("delivery.imageSeconds") })
        #expect(bad.problems.contains { $0.contains("delivery.linkBitsPerSecond") })
        #expect(throws: ProfileLoader.Failure.self) { try ProfileLoader.parse(Data(#"{"delivery": {"link": 1}}"#.utf8)) }
        do {
            _ = try ProfileLoader.parse(Data(#"{"delivery": {"seconds": 0.001}}"#.utf8))
            Issue.record("a 125-byte notification accepted")
        } catch {
            #expect("\(error)".contains("at least 20000"))
        }
    }

    /// A slow link: 256 kbit/s for 20 s is 640 KB per notification, 160 KB per image.
    static var slowLink: Profile {
        var profile = Profile()
        profile.delivery.linkBitsPerSecond = 256_000
        profile.limits.mediaTimeoutSeconds = 600
        profile.limits.timeoutSeconds = 600
        return profile
    }

    @Test("on a slow link every kind of item fits its notification; the manifest says its bytes and download time")
    func slowLinkItems() throws {
        let folder = try Fixtures.temporaryFolder()
        // A 6 s 720p movie with sound, about 4 MB: over the 640 KB notification, so transcoded.
        let movie = try MediaFactory.make(
            "clip.mp4", in: folder,
            [
                "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=6", "-f", "lavfi", "-i", "sine=d=6",
                "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "5M", "-c:a", "aac",
            ])
        let inputs = [movie, Fixtures.url("photos/landscape.jpg"), Fixtures.url("graphics/animated.gif"), Fixtures.url("audio/tone.mp3")]
        let target = Self.slowLink.delivery
        for input in inputs {
            let out = try Fixtures.temporaryFolder("out-\(input.lastPathComponent)")
            let item = ItemProcessor(profile: Self.slowLink, options: ProcessingOptions(outputDirectory: out))
                .process(InputFile(path: input.path, source: input.lastPathComponent))
            #expect(item.status == .ok, "\(input.lastPathComponent): \(item.error?.message ?? "")")
            let delivery = try #require(item.delivery)
            let onDisk = try item.attachments.reduce(0) { $0 + (try Data(contentsOf: out.appendingPathComponent($1.file)).count) }
            #expect(delivery.bytes == onDisk && delivery.bytes <= 640_000, "\(input.lastPathComponent): \(delivery.bytes)")
            #expect(abs(delivery.seconds - Double(onDisk) * 8 / 256_000) < 0.01 && delivery.seconds <= target.seconds)
            #expect(delivery.budget == 640_000 && delivery.linkBitsPerSecond == 256_000)
            for attachment in item.attachments {
                let budget = try #require(attachment.budget)
                #expect(attachment.bytes <= budget)
                if attachment.role != .media { #expect(budget <= target.imageBytes) }
            }
            if let media = item.attachment(.media), input == movie {
                #expect(media.media?.action == .transcoded)
                let images = item.attachments.filter { $0.role != .media }.reduce(0) { $0 + $1.bytes }
                #expect(media.budget == 640_000 - images)
            }
        }
    }

    @Test("a movie that cannot fit what the notification leaves fails over_budget and says what was tried")
    func movieOverDelivery() throws {
        let folder = try Fixtures.temporaryFolder()
        // 60 s at the lowest video rate (250 kbit/s) is ~1.9 MB: more than 640 KB.
        let movie = try MediaFactory.make(
            "long.mp4", in: folder,
            ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=10:d=60", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "2M"])
        let out = try Fixtures.temporaryFolder("out")
        let item = ItemProcessor(profile: Self.slowLink, options: ProcessingOptions(outputDirectory: out))
            .process(InputFile(path: movie.path, source: "long.mp4"))
        #expect(item.status == .failed && item.error?.code == .overBudget)
        let message = item.error?.message ?? ""
        #expect(message.contains("250000") && message.contains("640000 bytes in all"), "\(message)")
        #expect(item.delivery == nil && item.attachments.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }
}
