import Foundation
import PushMedia
import PushMediaModel
import PushMediaQueue

/// What a `process` run removes from its output folder once its manifest is written: the files
/// its own campaign stored there (its ``OutputLedger``) that the manifest no longer names (the
/// outputs of files since replaced or removed, of an item that failed after writing one, of a
/// run killed before it listed them), and nothing else. A file a person put in the folder is in
/// no ledger, however it is named; a file another campaign's ledger names is that campaign's,
/// even when this one stored it first. The ledger is then rewritten to what the manifest names.
///
/// Memory holds a hash a file (8 bytes), not the paths: a name whose hash collides with one to
/// keep is kept, never the reverse.
struct OutputSweep {
    /// The output folder.
    var folder: URL
    /// The campaign's ledger, in the folder's state folder beside the others.
    var ledger: OutputLedger

    /// The rewritten ledger while the manifest is written: the paths it names, a line each.
    var nextLedgerFile: URL { ledger.file.appendingPathExtension("next") }

    /// Removes the files the ledger names, and neither `referenced` (the hashes of the manifest's
    /// `file` paths), `kept` (those of files other campaigns name that have no ledger yet: the
    /// results of a version without ledgers), nor any other campaign's ledger does (a ledger
    /// being rewritten, `.next`, included); then puts the ledger written to ``nextLedgerFile``
    /// in place of the old one. Any failure to read what others name removes nothing.
    /// - Parameter removed: counts the files removed, also when the rest then fails.
    func run(referenced: Set<Int>, kept: Set<Int> = [], removed: inout Int) throws {
        var others = kept
        let ledgers = ledger.file.deletingLastPathComponent()
        let own = [ledger.file.lastPathComponent, nextLedgerFile.lastPathComponent]
        for name in try FileManager.default.contentsOfDirectory(atPath: ledgers.path)
        where (name.hasSuffix(".txt") || name.hasSuffix(".txt.next")) && !own.contains(name) {
            try OutputLedger(file: ledgers.appendingPathComponent(name)).forEachName { others.insert($0.hashValue) }
        }
        var seen = Set<Int>()
        try ledger.forEachName { path in
            let hash = path.hashValue
            guard !referenced.contains(hash), !others.contains(hash), seen.insert(hash).inserted, Self.isStorePath(path) else { return }
            let file = folder.appendingPathComponent(path)
            var info = stat()
            guard lstat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
            if unlink(file.path) == 0 { removed += 1 }
        }
        if rename(nextLedgerFile.path, ledger.file.path) != 0 {
            let code = errno
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO, userInfo: [NSFilePathErrorKey: ledger.file.path])
        }
    }

    /// The files (by their paths' hashes) that the results of the other campaigns of this output
    /// folder's queue name, for those campaigns with no ledger: their runs were of a version
    /// without ledgers, so only their results say which files are theirs.
    static func filesOfCampaignsWithoutLedgers(queue: some JobQueue, state: URL, besides campaign: String) async throws -> Set<Int> {
        var files = Set<Int>()
        for other in try await queue.countsByCampaign() where other.campaign != campaign {
            let ledger = OutputLedger.of(campaign: other.campaign, inState: state).file
            guard !FileManager.default.fileExists(atPath: ledger.path),
                !FileManager.default.fileExists(atPath: ledger.appendingPathExtension("next").path)
            else { continue }
            try await queue.forEachPage(campaign: other.campaign) { page in
                for job in page {
                    guard let result = job.result, let item = try? Item.decode(from: result) else { continue }
                    for attachment in item.attachments { files.insert(attachment.file.hashValue) }
                }
            }
        }
        return files
    }

    /// Whether `path` is one ``OutputStore`` makes: an output name in the folder itself, or in
    /// the shard folder of its hash's first two digits. A ledger line is PushMedia's own, but it
    /// is checked all the same before anything is removed by it.
    static func isStorePath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return OutputStore.isOutputName(path)
        case 2: return OutputStore.isOutputName(String(parts[1])) && parts[0].count == 2 && parts[1].hasPrefix(parts[0])
        default: return false
        }
    }
}

/// The paths a manifest names, written a line at a time as its items are: the campaign's
/// ledger once the sweep has run.
final class LedgerWriter {
    private let handle: FileHandle
    private var buffer = Data()

    init(file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        handle = try FileHandle(forWritingTo: file)
    }

    func add(_ path: String) throws {
        buffer.append(contentsOf: Array(path.utf8))
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { try flush() }
    }

    func close() throws {
        try flush()
        try handle.synchronize()
        try handle.close()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
