import Foundation

/// A notification's `userInfo` as a plain value tree, so that parsing never has to trust
/// `Any` and never crashes on unexpected types.
public indirect enum PlannerJSON: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([PlannerJSON])
    case object([String: PlannerJSON])
    case null
    /// Something JSON cannot hold (a `Date`, `Data`, a custom object, or nesting deeper than
    /// ``maxDepth``), described by its type name.
    case unsupported(String)

    /// Deeper nesting than this is not followed (a push payload is at most 4 KB; real payloads
    /// nest four or five levels).
    public static let maxDepth = 32

    /// Converts a `userInfo` dictionary (or any value inside one). Keys that are not strings are
    /// skipped; `NSNumber` booleans become ``bool(_:)``, other numbers ``number(_:)``.
    public init(any value: Any) {
        self = PlannerJSON.convert(value, depth: 0)
    }

    /// Decodes JSON data. Throws on malformed JSON.
    public init(jsonData: Data) throws {
        self = try JSONDecoder().decode(PlannerJSON.self, from: jsonData)
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> PlannerJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// A short name of the value's type, for problem messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .array: "array"
        case .object: "object"
        case .null: "null"
        case .unsupported(let name): name
        }
    }

    private static func convert(_ value: Any, depth: Int) -> PlannerJSON {
        guard depth <= maxDepth else { return .unsupported("nesting deeper than \(maxDepth)") }
        if let s = value as? String { return .string(s) }
        if value is NSNull { return .null }
        if type(of: value) == Bool.self, let b = value as? Bool { return .bool(b) }
        switch value {
        case let v as Int where type(of: value) == Int.self: return .number(Double(v))
        case let v as Double where type(of: value) == Double.self: return .number(v)
        case let v as Float where type(of: value) == Float.self: return .number(Double(v))
        case let v as Int64 where type(of: value) == Int64.self: return .number(Double(v))
        case let v as Int32 where type(of: value) == Int32.self: return .number(Double(v))
        case let v as UInt where type(of: value) == UInt.self: return .number(Double(v))
        case let v as UInt64 where type(of: value) == UInt64.self: return .number(Double(v))
        default: break
        }
        if let n = value as? NSNumber {
            // Foundation's boolean NSNumber is the private class __NSCFBoolean on Apple platforms
            // and in swift-corelibs-foundation alike.
            if String(describing: type(of: n)).contains("Boolean") { return .bool(n.boolValue) }
            return .number(n.doubleValue)
        }
        if let dict = value as? [String: Any] {
            return .object(dict.mapValues { convert($0, depth: depth + 1) })
        }
        if let dict = value as? [AnyHashable: Any] {
            var members: [String: PlannerJSON] = [:]
            for (key, member) in dict {
                guard let key = key.base as? String else { continue }
                members[key] = convert(member, depth: depth + 1)
            }
            return .object(members)
        }
        if let array = value as? [Any] {
            return .array(array.map { convert($0, depth: depth + 1) })
        }
        return .unsupported(String(describing: type(of: value)))
    }
}

extension PlannerJSON: Decodable {
    public init(from decoder: Decoder) throws {
        if decoder.codingPath.count > PlannerJSON.maxDepth {
            self = .unsupported("nesting deeper than \(PlannerJSON.maxDepth)")
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? container.decode(Double.self) {
            self = .number(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([PlannerJSON].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: PlannerJSON].self))
        }
    }
}

extension PlannerJSON {
    /// The string, if this is one.
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, if this is one.
    var number: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    /// A boolean, also accepting the numbers `0` and `1` (APNs payloads often use them).
    var flag: Bool? {
        switch self {
        case .bool(let b): b
        case .number(let d) where d == 0 || d == 1: d == 1
        default: nil
        }
    }

    var objectMembers: [String: PlannerJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    var arrayElements: [PlannerJSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
