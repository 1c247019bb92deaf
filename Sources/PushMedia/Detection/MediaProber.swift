import Foundation
import PushMediaModel

/// What `pushmedia probe` shows: the format from the bytes and what the header says. It runs
/// the pipeline's own first stages (``Source/read(_:)``, then ``ProbedImage/probe(_:_:)`` or
/// ``ProbedMedia/probe(_:_:)``), with the default profile's limits and time limit.
public enum MediaProber {
    public struct Result: Sendable, Codable, Equatable {
        public var kind: MediaKind
        public var probe: Probe
    }

    /// Probes a file without decoding its pixels.
    public static func probe(path: String) throws(ItemError) -> Result {
        let run = ItemRun(
            input: InputFile(path: path, source: (path as NSString).lastPathComponent), profile: .default,
            options: ProcessingOptions(outputDirectory: URL(fileURLWithPath: "/dev/null")))
        do {
            let source = try run.stage("read") { try Source.read(run) }
            switch source.kind {
            case .video, .audio:
                let media = try run.stage("probe") { try ProbedMedia.probe(source, run) }
                return Result(kind: media.kind, probe: media.probe)
            default:
                let image = try run.stage("probe") { try ProbedImage.probe(source, run) }
                return Result(kind: image.kind, probe: image.probe)
            }
        } catch let error as ItemError {
            throw error
        } catch {
            throw ItemError(.internalError, "\(error)")
        }
    }
}
