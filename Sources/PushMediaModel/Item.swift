import Foundation

/// One input file and what became of it.
public struct Item: Codable, Sendable, Equatable {
    /// Path relative to the input folder, with `/` separators (or the URL, for URL sources).
    /// A path that is not valid UTF-8 is percent-escaped, and ``sourceEncoding`` says so.
    public var source: String
    /// Absent when ``source`` is the path itself; `percent` when the path's bytes are not valid
    /// UTF-8 and ``source`` is their escaped text (``EscapedPath``).
    public var sourceEncoding: SourceEncoding?
    /// SHA-256 of the input bytes, lowercase hex. Absent when the file could not be read.
    public var sourceSHA256: String?
    /// Size of the input in bytes, when it could be read.
    public var sourceBytes: Int?
    public var kind: MediaKind
    public var status: Status
    /// Why the item failed; present exactly when ``status`` is ``Status/failed``.
    public var error: ItemError?
    /// What was detected from the input's bytes.
    public var probe: Probe?
    /// The files to ship: thumbnail and expanded image for images, plus the media itself for
    /// movies and audio. Empty for failed items.
    public var attachments: [Attachment]
    /// Lossy or surprising things that happened on the way, in words.
    public var warnings: [String]
    /// What the item's notification costs to deliver: all its attachments' bytes and their
    /// download time on the profile's link. Absent when there are no attachments.
    public var delivery: NotificationDelivery?

    public init(
        source: String,
        sourceEncoding: SourceEncoding? = nil,
        sourceSHA256: String? = nil,
        sourceBytes: Int? = nil,
        kind: MediaKind,
        status: Status,
        error: ItemError? = nil,
        probe: Probe? = nil,
        attachments: [Attachment] = [],
        warnings: [String] = [],
        delivery: NotificationDelivery? = nil
    ) {
        self.source = source
        self.sourceEncoding = sourceEncoding
        self.sourceSHA256 = sourceSHA256
        self.sourceBytes = sourceBytes
        self.kind = kind
        self.status = status
        self.error = error
        self.probe = probe
        self.attachments = attachments
        self.warnings = warnings
        self.delivery = delivery
    }

    /// A failed item: no attachments, an error code and message.
    public static func failed(
        source: String,
        sourceEncoding: SourceEncoding? = nil,
        kind: MediaKind = .unknown,
        error: ItemError,
        sourceSHA256: String? = nil,
        sourceBytes: Int? = nil,
        probe: Probe? = nil
    ) -> Item {
        Item(
            source: source, sourceEncoding: sourceEncoding, sourceSHA256: sourceSHA256, sourceBytes: sourceBytes, kind: kind,
            status: .failed, error: error, probe: probe)
    }

    /// ``source`` and ``sourceEncoding`` together: the path's bytes as text.
    public var sourcePath: EscapedPath {
        get { EscapedPath(text: source, encoding: sourceEncoding) }
        set {
            source = newValue.text
            sourceEncoding = newValue.encoding
        }
    }

    /// The first attachment with a role.
    public func attachment(_ role: Attachment.Role) -> Attachment? {
        attachments.first { $0.role == role }
    }

    public enum Status: String, Codable, Sendable, Equatable {
        case ok
        case failed
    }
}

/// What kind of media an input is, decided from its bytes.
public enum MediaKind: String, Codable, Sendable, Equatable, CaseIterable {
    case image
    case animatedImage
    case video
    case audio
    /// Not recognised (only on failed items).
    case unknown
}

/// A stable error code and a human message.
public struct ItemError: Codable, Sendable, Equatable, Error {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Stable, machine-readable reasons an item failed. New codes may be added; existing ones keep
/// their meaning. Documented in `docs/manifest.md`.
public struct ErrorCode: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The file has zero bytes.
    public static let emptyInput = ErrorCode("empty_input")
    /// The file could not be opened or read (permissions, an I/O error). Transient.
    public static let unreadableInput = ErrorCode("unreadable_input")
    /// The file does not exist: removed since the folder was listed, a symbolic link to
    /// nothing, a path through something that is not a folder.
    public static let missingInput = ErrorCode("missing_input")
    /// The bytes are not a media type PushMedia handles (e.g. text named `.jpg`).
    public static let unsupportedType = ErrorCode("unsupported_type")
    /// The type is recognised but the decoder failed (truncated, damaged).
    public static let corruptInput = ErrorCode("corrupt_input")
    /// Encoding or writing an output failed.
    public static let encodeFailed = ErrorCode("encode_failed")
    /// An output could not be made to fit its byte budget.
    public static let overBudget = ErrorCode("over_budget")
    /// The input file is larger than the profile allows.
    public static let inputTooLarge = ErrorCode("input_too_large")
    /// The image (or one frame) has more pixels than the profile allows.
    public static let tooManyPixels = ErrorCode("too_many_pixels")
    /// The animation has more frames (or total pixels) than the profile allows.
    public static let tooManyFrames = ErrorCode("too_many_frames")
    /// The item took longer than the profile's time limit.
    public static let timeout = ErrorCode("timeout")
    /// A media file with no audio or video stream that can be used.
    public static let noMediaStream = ErrorCode("no_media_stream")
    /// A movie or audio file longer than the profile allows.
    public static let tooLong = ErrorCode("too_long")
    /// A URL source could not be downloaded this time (a timeout, a refused or dropped
    /// connection, HTTP 5xx, 408 or 429, a DNS server that did not answer). Transient.
    public static let downloadFailed = ErrorCode("download_failed")
    /// A URL source cannot be downloaded, and trying again will not change that: the host name
    /// does not exist, the URL or its port is invalid, the server answered 4xx (not 408 or
    /// 429), TLS failed, a redirect was broken.
    public static let sourceUnavailable = ErrorCode("source_unavailable")
    /// A source that is not allowed: a URL to a private, loopback or metadata address, or a path
    /// outside the input root.
    public static let sourceForbidden = ErrorCode("source_forbidden")
    /// The item's queue job has not finished (queued, running or waiting to retry).
    public static let notProcessed = ErrorCode("not_processed")
    /// The outputs were made but could not be stored at the destination (an S3 bucket refused them
    /// or did not answer, after retries). Transient: the queue tries the job again.
    public static let storeFailed = ErrorCode("store_failed")
    /// The process working on the item ended without finishing it (a crash, a kill, out of memory)
    /// or stopped answering, on every attempt the queue allows: the item is given up, not the batch.
    public static let workerCrashed = ErrorCode("worker_crashed")
    /// The output folder, the queue's folder or the temporary folder could not be written: out
    /// of space or inodes, read-only, an I/O error. Not the item's fault: the job goes back to
    /// the queue uncounted, `process` stops (exit 2) and a worker pauses until it can write
    /// again, so this code is seen in logs and events, not in a finished manifest.
    public static let storageFailed = ErrorCode("storage_failed")
    /// The profile the item was to be made with is not usable (a value out of range, a key that
    /// is not known, a file that cannot be read): a queued job whose stored profile fails
    /// ``Profile/problems``. Permanent: a retry would meet the same profile.
    public static let invalidProfile = ErrorCode("invalid_profile")
    /// The item's process needed more memory than `--item-memory-limit` lets it grow by (an
    /// allocation or a thread's stack refused under the limit). Permanent under that limit: the
    /// same file needs the same memory; a higher limit may let it through.
    public static let memoryLimit = ErrorCode("memory_limit")
    /// A bug or an unexpected failure inside PushMedia.
    public static let internalError = ErrorCode("internal_error")
}

extension ErrorCode {
    /// The codes of failures that trying the item again may fix: the file was briefly
    /// unreadable, a download or the bucket failed this time, the machine was overloaded, a bug
    /// was hit, the item's process died (each such attempt counts, so a file that kills it every
    /// time ends after its attempts), the storage failed (that attempt is given back). Every
    /// other code is a property of the input or the settings and ends the job at its first
    /// attempt. This is the one table of it (docs/manifest.md).
    public static let transient: Set<ErrorCode> = [
        .unreadableInput, .encodeFailed, .timeout, .internalError, .downloadFailed, .storeFailed, .workerCrashed,
        .storageFailed,
    ]

    /// Whether a retry may fix an item failed with this code (``transient``).
    public var isTransient: Bool { Self.transient.contains(self) }
}

extension Item {
    /// The item as compact JSON (keys sorted), as the queue stores results.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads an item written by ``jsonData()``.
    public static func decode(from data: Data) throws -> Item {
        try JSONDecoder().decode(Item.self, from: data)
    }
}
