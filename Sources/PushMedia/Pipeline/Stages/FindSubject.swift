import PushMediaModel

/// Where the image's subject is, and for an animation the frame it was found on.
struct Subject {
    /// The subject as a unit point of the decoded image.
    var point: UnitPoint
    /// Unit rects both crops and the clipping rect hold when they can (the chosen faces with a
    /// margin, then bare); empty when no face chose the subject.
    var keep: [UnitRect] = []
    /// Unit rects of faces found but left out of the group, which the crops and the clipping
    /// rect hold whole or leave out, not cut, when they can move to.
    var avoid: [UnitRect] = []
    /// What chose the subject.
    var strategy: SubjectStrategy
    /// Every face found (profile `crop: smart`), largest first; nil when none was looked for.
    var faces: [UnitRect]?
    /// The animation frame that stands for the whole; nil for a still image.
    var representativeFrame: Int?
    /// That frame as decoded (in memory), which the subject was found on: the still thumbnail is
    /// cut from it without decoding it again. Nil for a still image.
    var representativeImage: Vips.Image?

    /// Long side of the proxy the attention and entropy search runs on.
    static let proxySide = 256

    /// Finds the subject once, on a small proxy of the decoded image, with the profile's
    /// strategy (`smart`: faces when there are any, else attention). For an animation it first
    /// picks a representative frame (not a blank or flat one) and looks there. A failing face
    /// search never fails the item: it adds a warning and attention decides.
    static func find(in decoded: Decoded, _ run: ItemRun) throws -> Subject {
        var subject: Subject
        do {
            let (image, frame) = try Vips.attributed(until: run.deadline) { () -> (Vips.Image, Int?) in
                switch decoded.pixels {
                case .still(let image): return (image, nil)
                case .animation(let animation):
                    let index = try RepresentativeFrame.find(in: animation)
                    return (try animation.frame(index), index)
                }
            }
            let faces = run.profile.crop == .smart ? findFaces(in: image, source: decoded.plan.source, run) : nil
            let size = PixelSize(width: image.width, height: image.height)
            if let faces, let choice = FaceSubject.choose(faces: faces, in: size) {
                subject = Subject(
                    point: choice.point, keep: choice.keep, avoid: choice.others, strategy: .faces, faces: faces)
            } else {
                let strategy = run.profile.crop == .smart ? .attention : run.profile.crop
                let point = try Vips.attributed {
                    try SubjectFinder.find(in: image, strategy: strategy, proxySide: proxySide)
                }
                subject = Subject(point: point, strategy: SubjectStrategy(strategy), faces: faces)
            }
            subject.representativeFrame = frame
            if frame != nil { subject.representativeImage = image }
        } catch let error as Vips.Error {
            // An animation's frames are decoded here: the deadline's kill flag can stop them.
            if run.isPastDeadline { throw run.timedOut("finding the subject") }
            throw ItemError(.corruptInput, "cannot analyse the image: \(error.message)")
        }
        run.record(subject: subject.point, strategy: subject.strategy, faces: subject.faces)
        return subject
    }

    /// The faces in `image` (a decode of a source of `source` pixels), searched on the
    /// detector's own proxy (``FaceSearchSettings/searchArea`` pixels: on the 256 px attention proxy a
    /// face in a 2400×800 banner is about 20 px, too small to find), only where a face could be
    /// (``FaceSearchPlan/firstLook(cells:image:scale:)``), and when that finds none in a banner,
    /// a second look at the skin-coloured regions at the scale a face of
    /// ``FaceSearchPlan/smallestSourceFace`` source pixels needs (``FaceSearchPlan``). In a banner,
    /// dlib's CNN then reads the first search's near misses and the skin it left unexplained
    /// (``FaceNetPlan``, within the profile's `limits.faceNetMilliseconds`). Two faces or more are
    /// measured (``FaceSizePlan``), so the largest is the largest face, not the coarsest pyramid
    /// level. Largest first; nil (and a warning) when the search fails, so attention decides
    /// instead.
    static func findFaces(in image: Vips.Image, source: PixelSize, _ run: ItemRun) -> [UnitRect]? {
        do {
            var faces = try Vips.attributed { () -> [UnitRect] in
                let size = PixelSize(width: image.width, height: image.height)
                let cells = try FaceDetector.cells(of: image)
                let firstScale = FaceSearchSettings.proxyScale(of: size)
                let smallestFace = FaceSearchPlan.smallestSourceFace * Double(image.width) / Double(max(1, source.width))
                let threshold = FaceSearchSettings.minimumScore
                // Windows down to the near misses' score: the faces (over `threshold`) are the
                // ones a search at `threshold` reports, since only surer windows suppress others.
                let windows: [FaceDetector.Found]
                switch FaceSearchPlan.firstLook(cells: cells, image: size, scale: firstScale) {
                case .wholeImage:
                    windows = try FaceDetector.found(image, minimumScore: FaceNetPlan.nearMissScore)
                case .regions(let plan):
                    windows =
                        plan.regions.isEmpty
                        ? []
                        : try FaceDetector.found(
                            image, regions: plan.regions, scale: plan.scale, levels: plan.levels ?? 0,
                            minimumScore: FaceNetPlan.nearMissScore)
                }
                var found = windows.filter { $0.score > threshold }.map(\.rect)
                let nearMisses = windows.filter { $0.score <= threshold }.map(\.rect)
                if found.isEmpty,
                    let plan = FaceSearchPlan.plan(cells: cells, image: size, firstScale: firstScale, smallestFace: smallestFace)
                {
                    found = try FaceDetector.found(
                        image, regions: plan.regions, scale: plan.scale, levels: plan.levels ?? 0, minimumScore: threshold
                    ).map(\.rect)
                }
                if let plan = FaceNetPlan.plan(
                    cells: cells, image: size, found: found, nearMisses: nearMisses, smallestFace: smallestFace,
                    milliseconds: run.profile.limits.faceNetMilliseconds)
                {
                    let deadline = min(run.deadline, .after(FaceNetPlan.deadline(for: run.profile.limits.faceNetMilliseconds)))
                    let net = try FaceDetector.searchNet(image, plan: plan, deadline: deadline)
                    found += FaceNetPlan.newFaces(net.faces.map(\.rect), besides: found)
                }
                if found.count >= 2 { found = try FaceDetector.measured(found, in: image) }
                return found.map { FaceDetector.unitRect($0, in: size) }
            }
            faces.sort { $0.width * $0.height > $1.width * $1.height }
            return faces
        } catch {
            run.warnings.append("subject: face detection failed (\(error)); libvips' attention chose the subject")
            return nil
        }
    }
}

extension SubjectStrategy {
    /// The strategy a non-face crop strategy names.
    init(_ crop: CropStrategy) {
        switch crop {
        case .smart, .attention: self = .attention
        case .entropy: self = .entropy
        case .centre: self = .centre
        }
    }
}
