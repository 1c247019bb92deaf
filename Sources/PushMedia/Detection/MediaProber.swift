import Foundation
import PushMediaModel

/// What `pushmedia probe` shows: the format from the bytes and what the header says.
public enum MediaProber {
    public struct Result: Sendable, Codable, Equatable {
        public var kind: MediaKind
        public var probe: Probe
    }

    /// Probes a file without decoding its pixels.
    public static func probe(path: String) throws(ItemError) -> Result {
        let context = ProcessingContext(
            input: InputFile(path: path, source: (path as NSString).lastPathComponent), profile: .default,
            options: ProcessingOptions(outputDirectory: URL(fileURLWithPath: "/dev/null")),
            deadline: .now + .seconds(60))
        do {
            try ReadSourceStep().run(context)
            if context.kind == .video || context.kind == .audio {
                try ProbeMediaStep().run(context)
            } else {
                try ProbeImageStep().run(context)
            }
        } catch let error as ItemError {
            throw error
        } catch {
            throw ItemError(.internalError, "\(error)")
        }
        guard let probe = context.probe else { throw ItemError(.internalError, "no probe result") }
        return Result(kind: context.kind, probe: probe)
    }
}
