import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

@Suite("Byte budgets on real encodes")
struct BudgetTests {
    /// Writes a noise image (the hardest content) as a file.
    static func noiseFile(_ folder: URL, _ name: String, width: Int, height: Int, seed: Int, png: Bool = false) throws -> URL {
        let image = try Vips.Image.noise(width: width, height: height, sigma: 50, seed: seed)
        let url = folder.appendingPathComponent(name)
        try (png ? image.pngData(compression: 1) : image.jpegData(quality: 95)).write(to: url)
        return url
    }

    @Test("every written attachment is within its budget and hard limit, or the item is over_budget")
    func property() throws {
        var rng = SeededRandom(seed: 2024)
        let folder = try Fixtures.temporaryFolder()
        var outcomes: [ErrorCode?] = []
        for index in 0..<14 {
            let width = Int.random(in: 40...1600, using: &rng)
            let height = Int.random(in: 40...1200, using: &rng)
            let png = index % 3 == 0
            let source = try Self.noiseFile(folder, "n\(index).\(png ? "png" : "jpg")", width: width, height: height, seed: index, png: png)
            var profile = Profile()
            profile.budgets.thumbnail = Int.random(in: 1_000...60_000, using: &rng)
            profile.budgets.expanded = Int.random(in: 1_000...300_000, using: &rng)
            profile.android.budget = Int.random(in: 5_000...300_000, using: &rng)
            let out = try Fixtures.temporaryFolder("out\(index)")
            let item = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: out))
                .process(InputFile(path: source.path, source: source.lastPathComponent))
            outcomes.append(item.error?.code)
            if item.status == .failed {
                #expect(item.error?.code == .overBudget, "\(item.error?.message ?? "")")
                #expect(item.error?.message.contains("tried") == true)
                #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
                continue
            }
            for attachment in item.attachments {
                let bytes = try Data(contentsOf: out.appendingPathComponent(attachment.file)).count
                // The Android image has its own budget, outside the iOS notification's.
                let budget =
                    switch attachment.role {
                    case .thumbnail: profile.budgets.thumbnail
                    case .android: profile.android.budget
                    default: profile.budgets.expanded
                    }
                #expect(bytes == attachment.bytes)
                #expect(bytes <= budget, "\(attachment.role) \(bytes) > \(budget)")
                #expect(bytes <= AttachmentType.forExtension(attachment.fileExtension)!.maxBytes)
                #expect(attachment.budget == budget)
                #expect((attachment.encoding?.attempts ?? 0) >= 1)
            }
        }
        #expect(outcomes.contains { $0 == nil }, "some items must fit")
    }

    @Test("a large noisy photo comes out within the default budgets")
    func largeNoisyPhoto() throws {
        let folder = try Fixtures.temporaryFolder()
        let source = try Self.noiseFile(folder, "noisy.jpg", width: 4000, height: 3000, seed: 7)
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: source.path, source: "noisy.jpg"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.width == 1200 && expanded.height == 600)
        #expect(expanded.bytes <= 1_000_000)
        #expect(try #require(item.attachment(.thumbnail)).bytes <= 150_000)
    }

    @Test("a budget below what quality alone can reach downscales, says so, and stays within budget")
    func downscales() throws {
        let folder = try Fixtures.temporaryFolder()
        let source = try Self.noiseFile(folder, "noisy.jpg", width: 1600, height: 1000, seed: 3)
        var profile = Profile()
        profile.budgets.expanded = 40_000
        let item = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: source.path, source: "noisy.jpg"))
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.bytes <= 40_000)
        #expect((expanded.encoding?.scale ?? 1) < 1)
        #expect((40..<80).contains(expanded.encoding?.quality ?? 0), "the floor, or the best quality above it at the smaller scale")
        #expect(expanded.width! < 1200)
        #expect(item.warnings.contains { $0.contains("downscaled") })
        // The clip rect still describes a square of the (smaller) expanded image.
        let clip = try #require(expanded.options.thumbnailClippingRect)
        #expect(abs(clip.width * Double(expanded.width!) - clip.height * Double(expanded.height!)) <= 1.5)
    }
}
