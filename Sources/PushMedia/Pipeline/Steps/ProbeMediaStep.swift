import Foundation
import PushMediaModel

/// Probes a movie or audio file with libavformat (container, duration, bit rate, streams with
/// codec, size, display rotation, frame rate, pixel format, sample rate, channels, cover art).
/// Files FFmpeg cannot open fail with `corrupt_input`; files with no usable stream with
/// `no_media_stream`.
struct ProbeMediaStep: PipelineStep {
    var name: String { "probe" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        guard let format = context.format else { return }
        let description: MediaDescription
        do {
            description = try FFmpeg.MediaFile(path: context.input.path, format: format, deadline: context.deadline).probe()
        } catch let error as FFmpeg.Error {
            if ContinuousClock.now > context.deadline {
                throw ItemError(.timeout, "probing stopped at the time limit of \(String(format: "%g", context.timeoutSeconds)) s")
            }
            throw ItemError(.corruptInput, "FFmpeg cannot read the \(format.rawValue) file: \(error.message)")
        }
        let (kind, probe) = try MediaClassifier.classify(description, format: format)
        context.kind = kind
        context.probe = probe
        if let width = probe.width, let height = probe.height {
            context.sourceSize = PixelSize(width: width, height: height)
        }
    }
}
