import Foundation
import PushMediaModel
import Yams

/// Reads a profile file (JSON, or YAML which is a superset of it) over the built-in defaults.
public enum ProfileLoader {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func load(path: String) throws -> Profile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read profile \(path)")
        }
        return try parse(data, name: path)
    }

    public static func parse(_ data: Data, name: String = "profile") throws -> Profile {
        let text = String(decoding: data, as: UTF8.self)
        let profile: Profile
        do {
            profile =
                if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
                    try JSONDecoder().decode(Profile.self, from: data)
                } else {
                    try YAMLDecoder().decode(Profile.self, from: text)
                }
        } catch let error as DecodingError {
            throw Failure(description: "\(name): \(describe(error))")
        } catch {
            throw Failure(description: "\(name): \(error)")
        }
        let problems = profile.problems
        guard problems.isEmpty else {
            throw Failure(description: "\(name): " + problems.joined(separator: "; "))
        }
        return profile
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .dataCorrupted(let context): return context.debugDescription + path(context)
        case .keyNotFound(let key, let context): return "missing \(key.stringValue)" + path(context)
        case .typeMismatch(let type, let context): return "expected \(type)" + path(context)
        case .valueNotFound(let type, let context): return "expected \(type)" + path(context)
        @unknown default: return "\(error)"
        }
    }
}
