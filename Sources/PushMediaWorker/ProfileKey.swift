import Foundation
import PushMedia
import PushMediaModel

/// A job's profile as the queue stores it: the whole profile as canonical JSON (sorted keys), so
/// any worker runs the job with the profile it was enqueued with, and the same settings always
/// give the same key (the queue's idempotency and results-cache key).
public enum ProfileKey {
    public static func encode(_ profile: Profile) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(profile), as: UTF8.self)
    }

    /// The profile a stored key holds, checked exactly like a `--profile` file (size, nesting,
    /// known keys, every value in range: ``ProfileLoader/parseJSON(_:name:)``), so that a job
    /// stored with a value that is not usable (by an older version, or written to the queue by
    /// hand) fails with a ``ProfileLoader/Failure`` instead of reaching the pipeline.
    public static func decode(_ key: String) throws -> Profile {
        try ProfileLoader.parseJSON(Data(key.utf8), name: "the job's profile")
    }
}
