import Crypto
import Foundation
import PushMediaModel

/// The files one campaign's runs stored in an output folder, a path a line, kept in the
/// folder's state (`OUT/.pushmedia/ledgers/<campaign hash>.txt`).
///
/// An output is recorded before it is renamed into place (and when a run finds it already
/// there), so a file PushMedia made is in some campaign's ledger even when the run that made it
/// was killed before it listed it. The `process` run that owns the ledger removes only what its
/// ledger names and no manifest now lists (``OutputSweep``): never a file a person put in the
/// folder, never one another campaign's ledger names.
///
/// Item processes append to it at once: each record is one `write` of one short line to a
/// file opened with `O_APPEND`, which the kernel does not interleave.
public struct OutputLedger: Sendable, Equatable {
    /// The ledger file.
    public var file: URL

    public init(file: URL) {
        self.file = file
    }

    /// The folder of the ledgers in an output folder's state folder.
    public static func folder(inState state: URL) -> URL {
        state.appendingPathComponent("ledgers", isDirectory: true)
    }

    /// The ledger of `campaign` in the state folder `state`: named by a hash of the campaign,
    /// whose text (a path, a URL) may be anything.
    public static func of(campaign: String, inState state: URL) -> OutputLedger {
        let digest = SHA256.hash(data: Data(campaign.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return OutputLedger(file: folder(inState: state).appendingPathComponent("\(digest).txt"))
    }

    /// What a ledger could not do.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Appends `name` (a path relative to the output folder) as a line.
    public func record(_ name: String) throws {
        let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO, userInfo: [NSFilePathErrorKey: file.path])
        }
        defer { close(descriptor) }
        let line = Array((name + "\n").utf8)
        let written = line.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            let code = written < 0 ? errno : EIO
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    /// Calls `body` with each path the ledger names (repeats included), a line at a time; no
    /// file is an empty ledger.
    public func forEachName(_ body: (String) throws -> Void) throws {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let lines = try FileLineReader(url: file)
        while let line = try lines.next() {
            if !line.isEmpty { try body(String(decoding: line, as: UTF8.self)) }
        }
    }
}
