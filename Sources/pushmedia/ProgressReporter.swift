import Foundation
import PushMediaModel

/// Progress on standard error: a redrawn bar on a terminal, one plain line per item otherwise.
final class ProgressReporter: @unchecked Sendable {
    private let total: Int
    private let interactive: Bool
    private let lock = NSLock()

    init(total: Int, interactive: Bool, jsonMode: Bool) {
        self.total = total
        self.interactive = interactive
    }

    func report(_ item: Item, done: Int, total: Int) {
        lock.lock()
        defer { lock.unlock() }
        if interactive {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let name = item.source.count > 40 ? "…" + item.source.suffix(39) : item.source
            printError(String(format: "\r\u{1B}[2K%@ %d/%d %@", bar, done, total, name), newline: false)
        } else {
            printError(Self.line(for: item, done: done, total: total))
        }
    }

    func finish() {
        if interactive { printError("\r\u{1B}[2K", newline: false) }
    }

    static func line(for item: Item, done: Int, total: Int) -> String {
        let counter = "[\(done)/\(total)]"
        switch item.status {
        case .ok:
            let files = item.attachments.map { a in
                var parts = [a.role.rawValue]
                if let width = a.width, let height = a.height { parts.append("\(width)x\(height)") }
                if a.role == .media {
                    parts.append(a.fileExtension)
                    if let action = a.media?.action, action != .kept { parts.append(action.rawValue) }
                }
                parts.append(formatBytes(a.bytes))
                return parts.joined(separator: " ")
            }
            return "\(counter) ok     \(item.source): " + files.joined(separator: ", ")
        case .failed:
            return "\(counter) failed \(item.source): \(item.error?.code.rawValue ?? "?"): \(item.error?.message ?? "")"
        }
    }

    private func printError(_ text: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((newline ? text + "\n" : text).utf8))
    }
}
