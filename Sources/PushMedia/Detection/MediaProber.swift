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
            do {
                try ReadSourceStep().run(context)
            } catch let error as ItemError where error.code == .notSupportedYet {
                // Recognised media that is not processed yet can still be named.
                guard let format = context.format else { throw error }
                return Result(kind: format.kind, probe: Probe(format: format.rawValue, mimeType: format.mimeType))
            }
            try ProbeImageStep().run(context)
        } catch let error as ItemError {
            throw error
        } catch {
            throw ItemError(.internalError, "\(error)")
        }
        guard let probe = context.probe else { throw ItemError(.internalError, "no probe result") }
        return Result(kind: context.kind, probe: probe)
    }
}
