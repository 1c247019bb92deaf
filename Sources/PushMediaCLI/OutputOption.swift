import ArgumentParser
import Foundation
import Logging
import PushMediaObjectStore
import PushMediaWorker

/// `--out` (or PUSHMEDIA_OUT) opened for `process` and `worker`: a local folder, or
/// `s3://BUCKET/PREFIX` with the AWS variables (docs/storage.md). A bucket is checked before any
/// work starts (one ListObjectsV2): a missing bucket, refused credentials, a skewed clock or a
/// server that does not answer is a usage error (exit 2) naming the cause.
enum OpenedOutput {
    case folder(URL)
    case bucket(BucketOutput)

    static func open(_ text: String, logger: Logger) async throws -> OpenedOutput {
        let destination: OutputDestination
        do {
            destination = try OutputDestination(parsing: text)
        } catch {
            throw ValidationError("--out: \(error)")
        }
        switch destination {
        case .folder(let path):
            return .folder(URL(fileURLWithPath: path))
        case .s3(let location):
            let configuration: S3Configuration
            do {
                configuration = try S3Configuration.fromEnvironment(ProcessInfo.processInfo.environment)
            } catch {
                throw ValidationError("--out \(location): \(error)")
            }
            let client = S3Client(configuration: configuration, logger: logger)
            do {
                try await client.checkBucket(location.bucket)
            } catch {
                throw ValidationError("--out \(location): cannot use the bucket: \(error)")
            }
            return .bucket(BucketOutput(client: client, location: location))
        }
    }

    /// Where `process` keeps its embedded queue for a bucket destination: `--state`, else
    /// PUSHMEDIA_STATE, else `$XDG_STATE_HOME/pushmedia/s3/BUCKET/PREFIX` (XDG_STATE_HOME
    /// defaulting to `~/.local/state`).
    static func stateDirectory(_ flag: String?, for location: S3Location, environment: [String: String]) -> URL {
        if let folder = flag ?? environment[Setting.state].flatMap({ $0.isEmpty ? nil : $0 }) {
            return URL(fileURLWithPath: folder)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        return base.appendingPathComponent("pushmedia/s3/\(location.bucket)").appendingPathComponent(location.prefix)
    }
}
