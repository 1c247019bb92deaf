import Foundation

/// Where `--out` (or `PUSHMEDIA_OUT`) puts the outputs: a local folder, or a bucket and key
/// prefix on S3-compatible storage (`s3://BUCKET/PREFIX`). Pure: parsing only.
public enum OutputDestination: Sendable, Equatable, CustomStringConvertible {
    case folder(String)
    case s3(S3Location)

    /// Parses `s3://bucket[/prefix]`; anything without the `s3://` scheme is a folder path.
    public init(parsing text: String) throws {
        guard text.lowercased().hasPrefix("s3://") else {
            guard !text.isEmpty else { throw S3Configuration.Invalid(description: "--out is empty") }
            self = .folder(text)
            return
        }
        self = .s3(try S3Location(parsing: String(text.dropFirst("s3://".count))))
    }

    public var description: String {
        switch self {
        case .folder(let path): path
        case .s3(let location): location.description
        }
    }
}

/// A bucket and a key prefix (no leading or trailing `/`; empty for the bucket's root).
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    public var prefix: String

    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
    }

    /// `bucket[/prefix]`, the part after `s3://`. Bucket names follow S3's rules: 3–63
    /// characters, lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit.
    init(parsing text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = String(parts[0])
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.")
        guard (3...63).contains(bucket.count), bucket.allSatisfy(allowed.contains),
            bucket.first!.isLetter || bucket.first!.isNumber, bucket.last!.isLetter || bucket.last!.isNumber
        else {
            throw S3Configuration.Invalid(
                description: "s3://\(text): \"\(bucket)\" is not a bucket name (3–63 lowercase letters, digits, '-' and '.')")
        }
        let prefix = parts.count > 1 ? String(parts[1]) : ""
        guard !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw S3Configuration.Invalid(description: "s3://\(text): the prefix may not contain '.' or '..' segments")
        }
        self.init(bucket: bucket, prefix: prefix)
    }

    /// The key of a file under the prefix.
    public func key(_ name: String) -> String {
        prefix.isEmpty ? name : prefix + "/" + name
    }

    /// `s3://bucket/prefix/name`, for messages.
    public func uri(_ name: String) -> String {
        "s3://\(bucket)/\(key(name))"
    }

    public var description: String {
        "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)")
    }
}
