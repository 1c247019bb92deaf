import Foundation
import PushMediaModel

/// Everything one item's steps share: the input, what was learnt about it so far, and what has
/// been made. Steps read what earlier steps left and add their own part.
final class ProcessingContext {
    let input: InputFile
    let profile: Profile
    let options: ProcessingOptions
    /// When the item's time runs out (longer for movies and audio, once they are recognised).
    var deadline: ContinuousClock.Instant
    /// The limit behind ``deadline``, in seconds, for messages.
    var timeoutSeconds: Double

    // ReadSourceStep
    var sourceBytes: Int?
    var sourceSHA256: String?
    var format: MediaFormat?
    var kind: MediaKind = .unknown

    // ProbeImageStep
    var probe: Probe?
    /// Oriented size of the source.
    var sourceSize: PixelSize?

    // DecodeStep
    var plan: ImagePlan?
    /// The one decode (shrunk on load, upright, 8-bit sRGB) both variants are cut from. For an
    /// animation, all frames stacked vertically, each ``frameHeight`` high.
    var working: Vips.Image?
    var keepsAlpha = false
    var frameHeight: Int?
    /// Per-frame delays (ms) and loop count of an animation.
    var timing: (delays: [Int], loop: Int)?

    // FindSubjectStep
    var subject: UnitPoint?
    /// The animation frame that stands for the whole (not a blank first frame).
    var representativeFrame: Int?

    // CropStep
    var variants: [Variant] = []
    var clipRect: ClipRect?

    // EncodeStep
    var encoded: [EncodedImage] = []

    // StoreStep
    var attachments: [Attachment] = []

    // PosterFrameStep: seconds from the start of the movie's poster frame.
    var posterTime: Double?

    // ConvertMediaStep: the movie or audio file to ship.
    var media: PreparedMedia?

    var warnings: [String] = []

    init(input: InputFile, profile: Profile, options: ProcessingOptions, deadline: ContinuousClock.Instant) {
        self.input = input
        self.profile = profile
        self.options = options
        self.deadline = deadline
        self.timeoutSeconds = profile.limits.timeoutSeconds
    }

    /// A rendered (not yet encoded) variant.
    struct Variant {
        var role: Attachment.Role
        var pixels: VariantPixels
    }

    var isAnimation: Bool { (probe?.frames ?? 1) > 1 }

    /// Where the item's time runs out, as an error.
    func checkDeadline(before step: String) throws {
        if ContinuousClock.now > deadline {
            throw ItemError(.timeout, "time limit of \(String(format: "%g", timeoutSeconds)) s reached before \(step)")
        }
    }
}

/// A movie or audio file ready to store: the input itself, or a file made from it.
struct PreparedMedia {
    var file: URL
    /// True when ``file`` is ours to move into the output folder (else it is copied).
    var isTemporary: Bool
    var type: AttachmentType
    var budget: Int
    var encoding: Attachment.MediaEncoding
    var width: Int?
    var height: Int?
    var durationSeconds: Double?
}

/// Run-wide settings that are not part of the profile.
public struct ProcessingOptions: Sendable {
    /// Where output files go.
    public var outputDirectory: URL
    /// Joined with file names to make attachment URLs.
    public var baseURL: String?

    public init(outputDirectory: URL, baseURL: String? = nil) {
        self.outputDirectory = outputDirectory
        self.baseURL = baseURL
    }
}
