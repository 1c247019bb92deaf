import Foundation

/// The environment variables `pushmedia-testing` makes its item hooks from (docs/development.md).
/// Each lists sources (or step names), comma-separated; item processes it starts inherit them.
public enum ItemHookVariable {
    /// The gate's folder: steps listed in ``hold`` wait there, and passed steps are marked there.
    public static let gate = "PUSHMEDIA_TEST_GATE"
    /// Items (by source) and steps (`prepare`, …) held at the gate until the test opens it.
    public static let hold = "PUSHMEDIA_TEST_HOLD"
    /// Items whose process raises SIGSEGV when their work starts, as a decoder that crashes on
    /// that file every time would.
    public static let crash = "PUSHMEDIA_TEST_CRASH"
    /// Items that loop forever, checking no deadline, as a C loop that ignores its deadline would.
    public static let spin = "PUSHMEDIA_TEST_SPIN"
    /// Items that allocate and touch 64 MB blocks without end, as a decoder trusting a hostile
    /// size would, and abort when an allocation fails (as Swift's runtime does).
    public static let allocate = "PUSHMEDIA_TEST_ALLOCATE"
}

/// The item gate, from both sides. A `pushmedia-testing` run started with ``environment`` holds
/// each of `sources` (an item's source, or a step's name such as `prepare`) before it: it writes
/// `GATE/NAME.held` (holding the id of the process that waits: an item process, or the command
/// itself with `--in-process`) and waits until the test opens it (`GATE/NAME.go`). Every step it
/// passes (`prepare`, `prepared`, `item-process-input-ended`) is marked `GATE/NAME.reached`.
/// NAME is the source with every `/` made `_`. So a test states "the run is in the middle of that
/// item" through the code instead of through timing.
public struct ItemGate: Sendable {
    public let folder: URL
    public let sources: [String]

    public init(in parent: URL, holding sources: [String]) throws {
        folder = parent.appendingPathComponent("gate")
        self.sources = sources
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// This process's environment plus the gate's variables.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment[ItemHookVariable.gate] = folder.path
        environment[ItemHookVariable.hold] = sources.joined(separator: ",")
        return environment
    }

    /// `GATE/NAME` plus `suffix` (`.held`, `.go`, `.reached`) for the step or source `name`.
    public static func file(_ name: String, _ suffix: String, in folder: String) -> String {
        folder + "/" + name.replacingOccurrences(of: "/", with: "_") + suffix
    }

    private func file(_ name: String, _ suffix: String) -> String { Self.file(name, suffix, in: folder.path) }

    /// True once `source` waits at the gate.
    public func isHeld(_ source: String) -> Bool { FileManager.default.fileExists(atPath: file(source, ".held")) }

    /// The process `source` is held in, once the gate has written it.
    public func pid(_ source: String) -> pid_t? {
        (try? String(contentsOfFile: file(source, ".held"), encoding: .utf8)).flatMap { pid_t($0) }
    }

    /// Lets `source` go on.
    public func open(_ source: String) { _ = FileManager.default.createFile(atPath: file(source, ".go"), contents: nil) }

    /// True once the process passed the step `name`.
    public func hasReached(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name, ".reached")) }
}
