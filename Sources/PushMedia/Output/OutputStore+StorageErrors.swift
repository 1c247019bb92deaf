import Foundation
import PushMediaModel

extension OutputStore {
    /// The `errno` values that say the storage under a write failed, not the data or the caller:
    /// out of space or inodes (`ENOSPC`), over quota (`EDQUOT`), a read-only file system
    /// (`EROFS`), an I/O error (`EIO`). Such a failure is `storage_failed`: the job goes back
    /// uncounted and the run stops or pauses, since the next item would meet it too.
    public static let storageErrnos: Set<Int32> = [ENOSPC, EDQUOT, EROFS, EIO]

    /// The `errno` of a write that failed because the storage did (``storageErrnos``); read from
    /// a `POSIXError`, an `NSError` of the POSIX domain or its underlying error, or Foundation's
    /// out-of-space and read-only codes. Nil for any other failure.
    public static func storageErrno(of error: any Error) -> Int32? {
        let code: Int32?
        if let posix = error as? POSIXError {
            code = posix.code.rawValue
        } else {
            let error = error as NSError
            if error.domain == NSPOSIXErrorDomain {
                code = Int32(error.code)
            } else if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
                code = Int32(underlying.code)
            } else if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileWriteOutOfSpace.rawValue {
                code = ENOSPC
            } else if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileWriteVolumeReadOnly.rawValue {
                code = EROFS
            } else {
                code = nil
            }
        }
        guard let code, storageErrnos.contains(code) else { return nil }
        return code
    }
}

extension ItemError {
    /// The error of an output that could not be written to `folder`: `storage_failed` when the
    /// storage failed (``OutputStore/storageErrno(of:)``; the job is given back and the run
    /// stops or pauses), else `encode_failed`.
    static func writing(_ what: String, to folder: URL, _ error: any Error) -> ItemError {
        if let code = OutputStore.storageErrno(of: error) {
            return ItemError(.storageFailed, "cannot write the \(what) to \(folder.path): \(String(cString: strerror(code)))")
        }
        return ItemError(.encodeFailed, "cannot write the \(what): \(error)")
    }
}
