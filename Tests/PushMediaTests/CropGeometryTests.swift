import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Property tests of the pure crop geometry over many source sizes and subject positions.
@Suite("Crop geometry")
struct CropGeometryTests {
    /// Source sizes: fixed awkward ones plus random ones from 1 px to 12000 px.
    static func sizes(count: Int = 600) -> [PixelSize] {
        var rng = SeededRandom(seed: 42)
        var out = [
            PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 500), PixelSize(width: 500, height: 1),
            PixelSize(width: 2, height: 1), PixelSize(width: 3, height: 7), PixelSize(width: 299, height: 301),
            PixelSize(width: 1200, height: 600), PixelSize(width: 1201, height: 601), PixelSize(width: 4000, height: 3000),
            PixelSize(width: 3000, height: 500), PixelSize(width: 500, height: 3000), PixelSize(width: 12000, height: 9000),
        ]
        for _ in 0..<count {
            let longSide = Int.random(in: 1...12000, using: &rng)
            out.append(PixelSize(width: longSide, height: Int.random(in: 1...12000, using: &rng)))
        }
        return out
    }

    @Test("output sizes keep the aspect, respect the maxima and never upscale")
    func outputSizes() {
        let profile = Profile.default
        for size in Self.sizes() {
            let plan = ImagePlan(source: size, profile: profile)
            #expect(plan.thumbnail.width == plan.thumbnail.height, "\(size)")
            #expect(plan.thumbnail.width == min(300, size.width, size.height), "\(size)")
            #expect(plan.expanded.width <= 1200 && plan.expanded.height <= 600, "\(size)")
            #expect(plan.expanded.width <= size.width && plan.expanded.height <= size.height, "\(size)")
            #expect(plan.expanded.width >= 1 && plan.expanded.height >= 1)
            // 2:1 within the rounding of one pixel of height.
            let ratio = Double(plan.expanded.width) / Double(plan.expanded.height)
            if plan.expanded.height >= 2 && plan.expanded.width >= 2 {
                #expect(abs(ratio - 2) <= 2.0 / Double(plan.expanded.height) + 1e-9, "\(size) -> \(plan.expanded)")
            }
            // Large sources reach the maximum exactly.
            if size.width >= 1200 && size.height >= 600 {
                #expect(plan.expanded == PixelSize(width: 1200, height: 600), "\(size)")
            }
            // The decode is never larger than the source and large enough for both crops.
            #expect(plan.decode.width <= size.width && plan.decode.height <= size.height)
            let crop = CropGeometry.largestCrop(in: plan.decode, aspect: profile.expanded.aspect)
            #expect(crop.width + 1 >= plan.expanded.width, "\(size): decode \(plan.decode) too small")
            #expect(min(plan.decode.width, plan.decode.height) + 1 >= plan.thumbnail.width)
        }
    }

    @Test("crops lie inside the image and contain the subject, even at the edges")
    func cropsContainSubject() {
        var rng = SeededRandom(seed: 7)
        for size in Self.sizes(count: 300) {
            let plan = ImagePlan(source: size, profile: .default)
            let subjects = [
                UnitPoint(x: 0, y: 0), UnitPoint(x: 1, y: 1), UnitPoint(x: 0.999, y: 0.5), UnitPoint(x: 0.5, y: 0.001),
                UnitPoint(x: Double.random(in: 0...1, using: &rng), y: Double.random(in: 0...1, using: &rng)),
            ]
            for subject in subjects {
                let p = plan.placement(working: plan.decode, subject: subject, aspect: AspectRatio(width: 2, height: 1))
                let px = subject.x * Double(plan.decode.width)
                let py = subject.y * Double(plan.decode.height)
                for rect in [p.expandedRect, p.thumbnailRect] {
                    #expect(rect.x >= 0 && rect.y >= 0, "\(size) \(rect)")
                    #expect(rect.x + rect.width <= plan.decode.width && rect.y + rect.height <= plan.decode.height)
                    #expect(rect.contains(x: px, y: py), "\(size) subject \(subject) outside \(rect)")
                }
                #expect(p.thumbnailRect.width == p.thumbnailRect.height)
            }
        }
    }

    @Test("the clipping rect is a unit rect, square in expanded pixels, around the subject")
    func clipRectInvariants() {
        var rng = SeededRandom(seed: 99)
        for size in Self.sizes(count: 400) {
            let plan = ImagePlan(source: size, profile: .default)
            let subject = UnitPoint(x: Double.random(in: 0...1, using: &rng), y: Double.random(in: 0...1, using: &rng))
            let p = plan.placement(working: plan.decode, subject: subject, aspect: AspectRatio(width: 2, height: 1))
            let r = p.clipRect
            #expect(r.isValid, "\(size): \(r)")
            #expect(r.x + r.width <= 1 && r.y + r.height <= 1)
            let w = Double(plan.expanded.width)
            let h = Double(plan.expanded.height)
            // Square within 1 px, and the largest one: its side is the expanded height.
            #expect(abs(r.width * w - r.height * h) <= 1, "\(size): \(r) on \(plan.expanded)")
            #expect(abs(min(r.width * w, r.height * h) - min(w, h)) <= 1)
            // The subject, mapped into the expanded image, is inside the clipping rect.
            let e = p.expandedRect
            let sx = (subject.x * Double(plan.decode.width) - Double(e.x)) / Double(e.width)
            let sy = (subject.y * Double(plan.decode.height) - Double(e.y)) / Double(e.height)
            #expect(sx >= r.x - 1 / w && sx <= r.x + r.width + 1 / w, "\(size) subject \(sx) outside \(r)")
            #expect(sy >= r.y - 1 / h && sy <= r.y + r.height + 1 / h)
        }
    }

    @Test("the clipping rect is centred on the subject when it can be")
    func clipRectCentred() {
        // 1200×600 expanded, subject at 40 % across: the 600 px square starts at 480 - 300 = 180.
        let r = CropGeometry.clipRect(in: PixelSize(width: 1200, height: 600), around: (x: 480, y: 300))
        #expect(r == UnitRect(x: 0.15, y: 0, width: 0.5, height: 1))
        // Near the right edge it is clamped inside.
        let edge = CropGeometry.clipRect(in: PixelSize(width: 1200, height: 600), around: (x: 1190, y: 300))
        #expect(edge == UnitRect(x: 0.5, y: 0, width: 0.5, height: 1))
    }

    @Test("other aspects and sizes from the profile")
    func otherProfiles() {
        let profile = Profile(thumbnail: .init(size: 120), expanded: .init(aspect: AspectRatio(width: 3, height: 2), maxWidth: 900))
        let plan = ImagePlan(source: PixelSize(width: 4000, height: 4000), profile: profile)
        #expect(plan.expanded == PixelSize(width: 900, height: 600))
        #expect(plan.thumbnail == PixelSize(width: 120, height: 120))
    }

    @Test("fitting inside a box: one factor for both sides, never enlarged, inside the box, one side filling it")
    func fitted() {
        var rng = SeededRandom(seed: 7)
        for size in Self.sizes() {
            let box = PixelSize(width: Int.random(in: 1...13_000, using: &rng), height: Int.random(in: 1...13_000, using: &rng))
            let fit = ImagePlan.fitted(size, inside: box)
            #expect(fit.width >= 1 && fit.height >= 1)
            #expect(fit.width <= size.width && fit.height <= size.height, "\(size) in \(box)")
            if size.width <= box.width && size.height <= box.height {
                #expect(fit == size)
                continue
            }
            #expect(fit.width <= box.width && fit.height <= box.height, "\(size) in \(box) → \(fit)")
            #expect(fit.width == box.width || fit.height == box.height || fit.width == 1 || fit.height == 1, "\(size) in \(box) → \(fit)")
            // The same factor on both sides, up to rounding to whole pixels.
            let shrink = max(Double(size.width) / Double(box.width), Double(size.height) / Double(box.height))
            #expect(abs(Double(size.width) / shrink - Double(fit.width)) <= 0.5 + 1e-9 || fit.width == 1, "\(size) in \(box) → \(fit)")
            #expect(abs(Double(size.height) / shrink - Double(fit.height)) <= 0.5 + 1e-9 || fit.height == 1, "\(size) in \(box) → \(fit)")
        }
    }
}
