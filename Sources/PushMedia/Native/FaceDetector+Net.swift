import CDeadline
import CFaceDetect
import CFaceNet
import PushMediaModel

/// The searches of ``FaceNetPlan`` and ``FaceSizePlan``: dlib's CNN face detector (`CFaceNet`,
/// its weights compiled in from `face_net_model.h`) on planned regions, and the HOG search again
/// around each face to measure it. Faces come with their scores, in pixels of the image.
extension FaceDetector {
    /// One face and the detector's score (the HOG model's and the net's are not comparable).
    struct Found: Sendable, Equatable {
        /// In pixels of the image searched.
        var rect: PixelRect
        var score: Double
    }

    /// The faces the net finds in `plan`'s regions of `image`, surest first, scoring over
    /// `minimumScore` (the net's own threshold is 0); it stops between regions at `deadline`.
    static func searchNet(
        _ image: Vips.Image, plan: FaceNetPlan, minimumScore: Double = FaceSearchSettings.netMinimumScore,
        deadline: Deadline?
    ) throws -> (faces: [Found], searched: Int) {
        let maxFaces = FaceSearchSettings.maxFaces
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let regions = plan.regions.map {
            pm_face_region(x: Int32($0.rect.x), y: Int32($0.rect.y), width: Int32($0.rect.width), height: Int32($0.rect.height))
        }
        let scales = plan.regions.map(\.scale)
        var searched: Int32 = 0
        let count = try withNetImage(of: image) { request in
            pm_detect_faces_net(
                request, regions, scales, Int32(regions.count), minimumScore, deadline.native, &boxes, Int32(maxFaces),
                &searched, &message, message.count)
        }
        guard count >= 0 else { throw Failure(message: "face detection (net): \(String(cBuffer: message))") }
        return (found(boxes.prefix(min(Int(count), maxFaces)), in: image), Int(searched))
    }

    /// HOG faces of `image` in `regions` read at `scale` on `levels` levels (0: all), scoring over
    /// `minimumScore`, in pixels of the image, surest first.
    static func found(
        _ image: Vips.Image, regions: [PixelRect], scale: Double, levels: Int, minimumScore: Double,
        build: SearchBuild? = nil
    ) throws -> [Found] {
        let maxFaces = FaceSearchSettings.maxFaces
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let native = regions.map { pm_face_region(x: Int32($0.x), y: Int32($0.y), width: Int32($0.width), height: Int32($0.height)) }
        let count = try withSearchedImage(of: image) { request in
            pm_detect_faces_in_regions_with(
                build?.choice ?? PM_FACE_SEARCH_AUTOMATIC, request, native, Int32(native.count), scale, Int32(levels),
                minimumScore, &boxes, Int32(maxFaces), &message, message.count)
        }
        guard count >= 0 else { throw Failure(message: "face detection: \(String(cBuffer: message))") }
        return found(boxes.prefix(min(Int(count), maxFaces)), in: image)
    }

    /// The whole-image HOG search (``search(_:build:)``) reporting every window scoring over
    /// `minimumScore`, in pixels of the image, surest first.
    static func found(_ image: Vips.Image, minimumScore: Double) throws -> [Found] {
        let maxFaces = FaceSearchSettings.maxFaces
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let searched = FaceSearchSettings.proxySize(of: PixelSize(width: image.width, height: image.height))
        let count = try withSearchedImage(of: image) { request in
            pm_detect_faces(
                request, Int32(searched.width), Int32(searched.height), minimumScore, &boxes, Int32(maxFaces), &message,
                message.count)
        }
        guard count >= 0 else { throw Failure(message: "face detection: \(String(cBuffer: message))") }
        let across = Double(image.width) / Double(searched.width)
        let down = Double(image.height) / Double(searched.height)
        return found(
            boxes.prefix(min(Int(count), maxFaces)).map {
                pm_face_box(
                    x: Int32((Double($0.x) * across).rounded()), y: Int32((Double($0.y) * down).rounded()),
                    width: Int32((Double($0.width) * across).rounded()), height: Int32((Double($0.height) * down).rounded()),
                    score: $0.score)
            }, in: image)
    }

    /// `faces` (pixels of `image`) measured (``FaceSizePlan``): each searched again on one level
    /// at the plan's scales, its box the surest detection that is the same face.
    static func measured(_ faces: [PixelRect], in image: Vips.Image) throws -> [PixelRect] {
        let size = PixelSize(width: image.width, height: image.height)
        return try faces.map { face in
            let found = try FaceSizePlan.searches(for: face, in: size).flatMap { search in
                try Self.found(
                    image, regions: [search.region], scale: search.scale, levels: 1,
                    minimumScore: FaceSearchSettings.minimumScore)
            }
            return FaceSizePlan.measured(face, found: found.map { ($0.rect, $0.score) })
        }
    }

    /// `boxes` in pixels of `image`, clamped inside it (empty ones dropped).
    static func found(_ boxes: some Sequence<pm_face_box>, in image: Vips.Image) -> [Found] {
        boxes.compactMap { box -> Found? in
            let left = max(0, min(image.width, Int(box.x)))
            let top = max(0, min(image.height, Int(box.y)))
            let right = max(left, min(image.width, Int(box.x) + Int(box.width)))
            let bottom = max(top, min(image.height, Int(box.y) + Int(box.height)))
            guard right > left, bottom > top else { return nil }
            return Found(rect: PixelRect(x: left, y: top, width: right - left, height: bottom - top), score: box.score)
        }
    }

    /// `rect` (pixels of an image of `size`) as a unit rect of it.
    static func unitRect(_ rect: PixelRect, in size: PixelSize) -> UnitRect {
        UnitRect(
            x: Double(rect.x) / Double(size.width), y: Double(rect.y) / Double(size.height),
            width: Double(rect.width) / Double(size.width), height: Double(rect.height) / Double(size.height))
    }

    /// `rect` (a unit rect of an image of `size`) in its pixels, rounded outwards.
    static func pixelRect(_ rect: UnitRect, in size: PixelSize) -> PixelRect {
        let left = Int((rect.x * Double(size.width)).rounded(.down))
        let top = Int((rect.y * Double(size.height)).rounded(.down))
        let right = Int((rect.maxX * Double(size.width)).rounded(.up))
        let bottom = Int((rect.maxY * Double(size.height)).rounded(.up))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Runs `body` with `image` described for `CFaceNet`: 8-bit sRGB as it is (bands 0–2 read as
    /// RGB), anything else as the grey band the HOG search reads.
    static func withNetImage<Result>(
        of image: Vips.Image, _ body: (UnsafePointer<pm_face_image>) throws -> Result
    ) throws -> Result {
        try withSearchedImage(of: image, body)
    }
}
