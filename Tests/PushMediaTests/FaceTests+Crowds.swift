import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Groups the frontal HOG search alone misses faces of, and faces of nearly equal size: the
/// second detector (dlib's CNN, ``FaceNetPlan``) and the measured sizes (``FaceSizePlan``) keep
/// the largest face in the crop.
extension FaceTests {
    /// One banner of `scripts/make-crowd-banners`.
    struct CrowdBanner: Decodable, Sendable {
        var file: String
        var width: Int
        var height: Int
        /// "crowd", "four" or "none".
        var kind: String
        /// The faces whole in the banner, unit rects of it (each the box of dlib's example, scaled).
        var faces: [UnitRect]
        /// Index of the largest in `faces`; nil without faces.
        var largest: Int?
        /// Other faces of the photos that show, partly masked, beside a head: neither required
        /// nor false.
        var cut: [UnitRect]
    }

    /// The crowd banners, made once per test process.
    static let crowds: Result<(folder: URL, banners: [CrowdBanner]), Error> = Result {
        try madeByScript("make-crowd-banners", hint: "is libdlib19.1's /usr/share/doc/libdlib19.1/examples installed?")
    }

    @Test(
        "crowds of 6-16 faces of 60-110 px and four faces of 116-125 px in 2400×800 and 3000×1000 banners, and dlib's group photos: the largest face inside the thumbnail's crop in at least 95 % of them, no false face, none on the controls"
    )
    func largestFaceKept() throws {
        let (folder, crowds) = try Self.crowds.get()
        #expect(Set(crowds.map(\.kind)) == ["crowd", "four", "none"])
        #expect(Set(crowds.map(\.width)) == [2400, 3000])
        var kept: [String] = []
        var withFaces: [String] = []
        for banner in crowds {
            let (subject, framed, working) = try Self.cut(folder.appendingPathComponent(banner.file))
            let found = subject.faces ?? []
            for face in found {
                #expect((banner.faces + banner.cut).contains { Self.overlap($0, face) >= 0.3 }, "\(banner.file): false face \(face)")
            }
            guard let largest = banner.largest else {
                #expect(found.isEmpty && subject.strategy == .attention, "\(banner.file): \(found)")
                continue
            }
            withFaces.append(banner.file)
            if Self.holds(framed.placement.thumbnailRect, banner.faces[largest], in: working) { kept.append(banner.file) }
        }
        let missed = withFaces.filter { !kept.contains($0) }
        #expect(Double(kept.count) >= 0.95 * Double(withFaces.count), "the largest face cut or left out in \(missed)")

        // dlib's group photos: a widest face (dlib's boxes come in a few sizes, so ties) kept.
        let (groupFolder, groups) = try Self.groups.get()
        var groupKept = 0
        for banner in groups {
            let (_, framed, working) = try Self.cut(groupFolder.appendingPathComponent(banner.file))
            let widest = banner.faces.map(\.width).max() ?? 0
            if banner.faces.contains(where: { $0.width >= widest - 1e-9 && Self.holds(framed.placement.thumbnailRect, $0, in: working) }) {
                groupKept += 1
            }
        }
        #expect(Double(groupKept) >= 0.95 * Double(groups.count), "\(groupKept) of \(groups.count) group banners keep a widest face")
    }

    @Test("banners without people: the second detector changes no output byte (the same files with it off)")
    func controlsUnchangedByTheNet() throws {
        let (folder, crowds) = try Self.crowds.get()
        let controls = crowds.filter { $0.kind == "none" }
        #expect(controls.count >= 4)
        var off = Profile.default
        off.limits.faceNetMilliseconds = 0
        for banner in controls {
            let url = folder.appendingPathComponent(banner.file)
            let with = ItemProcessor(
                profile: .default, options: ProcessingOptions(outputDirectory: try Fixtures.temporaryFolder("net-\(banner.file)"))
            )
            .process(InputFile(path: url.path, source: banner.file))
            let without = ItemProcessor(
                profile: off, options: ProcessingOptions(outputDirectory: try Fixtures.temporaryFolder("nonet-\(banner.file)"))
            )
            .process(InputFile(path: url.path, source: banner.file))
            #expect(with.probe?.faces == [] && without.probe?.faces == [], "\(banner.file)")
            #expect(!with.attachments.isEmpty && with.attachments.map(\.sha256) == without.attachments.map(\.sha256), "\(banner.file)")
        }
    }

    @Test("the net finds faces the HOG search does not: on the crowd banners, more faces with it than without")
    func netFindsMore() throws {
        let (folder, crowds) = try Self.crowds.get()
        var off = Profile.default
        off.limits.faceNetMilliseconds = 0
        var with = 0
        var without = 0
        for banner in crowds where banner.kind == "crowd" && banner.width == 2400 {
            let url = folder.appendingPathComponent(banner.file)
            func matched(_ profile: Profile) throws -> Int {
                let found = try Self.cut(url, profile: profile).0.faces ?? []
                return banner.faces.filter { face in found.contains { Self.overlap($0, face) >= 0.3 } }.count
            }
            with += try matched(.default)
            without += try matched(off)
        }
        #expect(with > without, "\(with) faces found with the net, \(without) without")
    }
}
