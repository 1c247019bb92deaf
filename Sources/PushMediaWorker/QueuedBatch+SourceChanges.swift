import Foundation
import PushMediaModel
import PushMediaQueue

/// What a rerun asks of the jobs an earlier run finished: whether their source changed since,
/// and whether their stored result still reads.
extension QueuedBatch {
    /// The size and modification time of a job's source file under the input folder (by its
    /// path's bytes, `lstat`: the link itself for a symbolic link); nil when it cannot be examined.
    func attributes(ofJobSource source: String) -> (size: Int, modified: Date)? {
        guard let relative = EscapedPath(jobSource: source).bytes else { return nil }
        let path = Array(inputDirectory.path.utf8) + [UInt8(ascii: "/")] + relative
        var info = stat()
        guard lstat(path.map { CChar(bitPattern: $0) } + [0], &info) == 0 else { return nil }
        let modified = Date(
            timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1_000_000_000)
        return (Int(info.st_size), modified)
    }

    /// Whether a finished job's source file changed since: modified after the job finished, or,
    /// like rsync's quick check, a size other than the bytes the job read (a replacement unpacked
    /// from an archive or copied with `cp -p` keeps an older modification time).
    static func sourceChanged(job: Job, size: Int?, modified: Date?) -> Bool {
        guard job.state.isTerminal else { return false }
        if let modified, let finished = job.finishedAt, modified > finished { return true }
        let read = job.result.flatMap { try? Item.decode(from: $0) }?.sourceBytes
        if let size, let read, size != read { return true }
        return false
    }

    /// Whether a finished job should have a result (it succeeded, or failed with an item that says
    /// why) and has none that decodes. A dead job has none by design: its last error is the item.
    static func resultUnreadable(job: Job) -> Bool {
        guard job.state == .succeeded || job.state == .failed else { return false }
        guard let result = job.result else { return true }
        return (try? Item.decode(from: result)) == nil
    }
}
