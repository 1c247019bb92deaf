import Foundation
import PushMediaModel
import PushMediaWorker

/// Progress on standard error: a redrawn bar on a terminal, one plain line per item otherwise.
final class ProgressReporter: @unchecked Sendable {
    private let interactive: Bool
    private let lock = NSLock()

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func report(_ item: ItemEvent) {
        lock.lock()
        defer { lock.unlock() }
        if interactive {
            let width = 30
            let filled = item.total == 0 ? width : width * item.done / item.total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let name = item.source.count > 40 ? "…" + item.source.suffix(39) : item.source
            printError(String(format: "\r\u{1B}[2K%@ %d/%d %@", bar, item.done, item.total, name), newline: false)
        } else {
            printError(Self.line(for: item))
        }
    }

    func finish() {
        if interactive { printError("\r\u{1B}[2K", newline: false) }
    }

    static func line(for item: ItemEvent) -> String {
        let counter = "[\(item.done)/\(item.total)]"
        switch item.status {
        case .ok:
            let files = item.attachments.map { file in
                let size = file.width.flatMap { w in file.height.map { " \(w)x\($0)" } } ?? ""
                return "\(file.role.rawValue)\(size) \(formatBytes(file.bytes))"
            }
            return "\(counter) ok     \(item.source): " + files.joined(separator: ", ")
        case .failed:
            return "\(counter) failed \(item.source): \(item.code?.rawValue ?? "?"): \(item.message ?? "")"
        }
    }

    private func printError(_ text: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((newline ? text + "\n" : text).utf8))
    }
}
