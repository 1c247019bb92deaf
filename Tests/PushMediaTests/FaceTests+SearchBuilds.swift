import CFaceDetect
import CPushMediaTestSupport
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// The face search's own steps against dlib's, and its AVX2 build against the portable one.
extension FaceTests {
    @Test(
        "the AVX2 build finds the same faces as the portable one, in every banner, and is the one that runs",
        .enabled(if: FaceDetector.SearchBuild.avx2.isAvailable, "this CPU has no AVX2 and FMA"))
    func searchBuildsAgree() throws {
        let (folder, banners) = try Self.banners()
        var faces = 0
        for banner in banners {
            let image = try Vips.Image.decode(try Data(contentsOf: folder.appendingPathComponent(banner.file)))
            let portable = try FaceDetector.detect(in: image, build: .portable)
            let avx2 = try FaceDetector.detect(in: image, build: .avx2)
            #expect(portable == avx2, "\(banner.file)")
            faces += portable.count
        }
        #expect(faces >= banners.filter { $0.face != nil }.count)
        #expect(FaceDetector.SearchBuild.automatic == .avx2)
    }

    /// What the comparisons with dlib's own steps read: the 1600 px banner with a face at each of
    /// `bannerWidths`, and seeded textures (strong gradients in every direction) of `textures`.
    static func comparedImages(bannerWidths: [Int], textures: [(Int, Int)], seed: UInt64) throws -> [(String, Vips.Image)] {
        let (folder, banners) = try Self.banners()
        let banner = try #require(banners.first { $0.face != nil && $0.width == 1600 })
        let photo = try Vips.Image.decode(try Data(contentsOf: folder.appendingPathComponent(banner.file)))
        var images: [(String, Vips.Image)] = []
        for width in bannerWidths {
            let height = max(1, photo.height * width / photo.width)
            images.append(("banner at \(width)", width == photo.width ? photo : try photo.reduced(to: PixelSize(width: width, height: height))))
        }
        var state = seed
        for (width, height) in textures {
            var pixels = [UInt8]()
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let value = UInt8(truncatingIfNeeded: (x * 7 + y * 3) & 0xFF ^ Int(state >> 58))
                    pixels += [value, value, value]
                }
            }
            images.append(("texture \(width)x\(height)", try Vips.Image.fromRGB(pixels, width: width, height: height)))
        }
        return images
    }

    /// `body`'s result on `image`'s memory as `CFaceDetect` reads it (an RGB image's green band).
    static func withFaceImage(_ image: Vips.Image, _ body: (UnsafePointer<pm_face_image>) -> Int) throws -> Int {
        let bytes = try image.memoryBytes()
        return bytes.withUnsafeBytes { raw in
            var face = pm_face_image(
                pixels: raw.bindMemory(to: UInt8.self).baseAddress, width: Int32(image.width), height: Int32(image.height),
                stride: Int32(image.width * image.bands), bands: Int32(image.bands), band: image.bands >= 3 ? 1 : 0)
            return body(&face)
        }
    }

    static var builds: [FaceDetector.SearchBuild] { FaceDetector.SearchBuild.avx2.isAvailable ? [.portable, .avx2] : [.portable] }

    @Test(
        "the search's filter step (face_search.h's, in place of dlib's) scores every window as dlib's own step does, within float rounding, in each build, at sizes whose feature rows end inside a vector or are shorter than one"
    )
    func filterStepAgreesWithDlibs() throws {
        let images = try Self.comparedImages(
            bannerWidths: [1600, 811, 403, 219, 131, 97], textures: [(173, 149), (88, 300), (64, 64), (20, 20), (40, 200)],
            seed: 0x9E37_79B9_7F4A_7C15)
        for build in Self.builds {
            var largest = 0.0
            for (name, image) in images {
                var difference = 0.0
                var score = 0.0
                var error = [CChar](repeating: 0, count: 256)
                let compared = try Self.withFaceImage(image) {
                    pm_face_filters_compare(build.choice, $0, &difference, &score, &error, error.count)
                }
                #expect(compared > 0, "\(build) \(name): \(String(cBuffer: error))")
                #expect(difference <= 1e-5 * max(1, score), "\(build) \(name): differs by \(difference), scores up to \(score)")
                largest = max(largest, score)
            }
            #expect(largest > 0.1, "\(build): every score was near 0, so nothing was compared")
        }
    }

    @Test(
        "the search's HOG features (face_features.h, in place of dlib's step) are dlib's own, within float rounding, in each build, at odd sizes, sizes of one to three cells and rows that end inside a vector"
    )
    func featuresAgreeWithDlibs() throws {
        var images = try Self.comparedImages(
            bannerWidths: [1600, 811, 403, 97],
            textures: [(173, 149), (88, 300), (33, 17), (24, 24), (20, 20), (19, 21), (9, 9), (2, 2), (1, 1)],
            seed: 0x2545_F491_4F6C_DD1D)
        images.append(("flat 64x48", try Vips.Image.fromRGB([UInt8](repeating: 90, count: 64 * 48 * 3), width: 64, height: 48)))
        for build in Self.builds {
            var largest = 0.0
            var total = 0
            for (name, image) in images {
                for cell in [8, 3, 5, 1] {
                    var difference = 0.0
                    var feature = 0.0
                    var error = [CChar](repeating: 0, count: 256)
                    let compared = try Self.withFaceImage(image) {
                        pm_face_features_compare(build.choice, $0, Int32(cell), &difference, &feature, &error, error.count)
                    }
                    #expect(compared >= 0, "\(build) \(name), cells of \(cell): \(String(cBuffer: error))")
                    #expect(
                        difference <= 1e-5 * max(1, feature),
                        "\(build) \(name), cells of \(cell): differs by \(difference), features up to \(feature)")
                    largest = max(largest, feature)
                    total += compared
                }
            }
            #expect(largest > 0.1, "\(build): every feature was near 0, so nothing was compared")
            #expect(total > 100_000, "\(build): \(total) features compared")
        }
    }
}
