import Foundation
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

    public static func decode(_ key: String) throws -> Profile {
        try JSONDecoder().decode(Profile.self, from: Data(key.utf8))
    }
}
