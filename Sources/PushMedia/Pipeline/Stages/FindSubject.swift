import PushMediaModel

/// Where the image's subject is, and for an animation the frame it was found on.
struct Subject {
    /// The subject as a unit point of the decoded image.
    var point: UnitPoint
    /// The animation frame that stands for the whole; nil for a still image.
    var representativeFrame: Int?

    /// Long side of the proxy the subject is searched on.
    static let proxySide = 256

    /// Finds the subject once, on a small proxy of the decoded image, with the profile's
    /// strategy. For an animation it first picks a representative frame (not a blank or flat
    /// one) and looks there.
    static func find(in decoded: Decoded, _ run: ItemRun) throws -> Subject {
        let subject: Subject
        do {
            subject = try Vips.attributed(until: run.deadline) {
                switch decoded.pixels {
                case .still(let image):
                    return Subject(point: try SubjectFinder.find(in: image, strategy: run.profile.crop, proxySide: proxySide))
                case .animation(let animation):
                    let index = try RepresentativeFrame.find(in: animation)
                    return Subject(
                        point: try SubjectFinder.find(in: animation.frame(index), strategy: run.profile.crop, proxySide: proxySide),
                        representativeFrame: index)
                }
            }
        } catch let error as Vips.Error {
            // An animation's frames are decoded here: the deadline's kill flag can stop them.
            if run.isPastDeadline { throw run.timedOut("finding the subject") }
            throw ItemError(.corruptInput, "cannot analyse the image: \(error.message)")
        }
        run.record(subject: subject.point)
        return subject
    }
}
