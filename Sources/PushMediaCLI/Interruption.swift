import Dispatch
import Foundation
import Glibc

/// Catches SIGINT and SIGTERM for a command that stops by itself (`process`, `worker --drain`):
/// the first signal calls `onSignal` with its number (which stops the run, so its queue worker gives the jobs in
/// progress back without counting their attempts); a second one ends the process at once, as an
/// impatient Ctrl-C expects.
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var caught: Int32?
    private var sources: [DispatchSourceSignal] = []

    init(_ signals: [Int32] = [SIGINT, SIGTERM], onSignal: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.lock.withLock { () -> Bool in
                    defer { self.caught = self.caught ?? number }
                    return self.caught == nil
                }
                if first { onSignal(number) } else { _exit(128 + number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal caught, if any.
    var signal: Int32? { lock.withLock { caught } }

    /// The signal's name, for messages.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
