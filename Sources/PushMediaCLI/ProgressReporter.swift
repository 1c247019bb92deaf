import Foundation
import PushMediaModel
import PushMediaWorker

/// Progress on standard error: a redrawn bar on a terminal, one plain line per item otherwise.
/// Names and messages are shown escaped (``TerminalText``): a file's name cannot draw a line of
/// its own nor send the terminal a control sequence.
final class ProgressReporter: @unchecked Sendable {
    private let interactive: Bool
    private let lock = NSLock()

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func report(_ item: ItemEvent) {
        report(done: item.done, total: item.total, name: item.source, line: Self.line(for: item))
    }

    /// The bar at `done` of `total` with `name` on a terminal; else `line`, when there is one.
    func report(done: Int, total: Int, name: String, line: @autoclosure () -> String?) {
        lock.lock()
        defer { lock.unlock() }
        if interactive {
            let width = 30
            let filled = total == 0 ? width : width * min(done, total) / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let name = TerminalText.escaped(name)
            let shown = name.count > 40 ? "…" + name.suffix(39) : name
            printError(String(format: "\r\u{1B}[2K%@ %d/%d %@", bar, done, total, shown), newline: false)
        } else if let line = line() {
            printError(line)
        }
    }

    func finish() {
        if interactive { printError("\r\u{1B}[2K", newline: false) }
    }

    static func line(for item: ItemEvent) -> String {
        let counter = "[\(item.done)/\(item.total)]"
        let source = TerminalText.escaped(item.source)
        switch item.status {
        case .ok:
            let files = item.attachments.map { file in
                let size = file.width.flatMap { w in file.height.map { " \(w)x\($0)" } } ?? ""
                return "\(file.role.rawValue)\(size) \(formatBytes(file.bytes))"
            }
            return "\(counter) ok     \(source): " + files.joined(separator: ", ")
        case .failed:
            return "\(counter) failed \(source): \(item.code?.rawValue ?? "?"): \(TerminalText.escaped(item.message ?? ""))"
        }
    }

    private func printError(_ text: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((newline ? text + "\n" : text).utf8))
    }
}
