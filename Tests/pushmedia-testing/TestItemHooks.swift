import Foundation
import PushMedia
import PushMediaTesting

/// The tests' hooks, from the variables ``ItemHookVariable`` names: the item gate (``ItemGate``
/// is its test side), and items that crash, spin or allocate without end in their process, for
/// the crash-containment tests. Nil when no variable is set.
struct TestItemHooks: ItemHooks {
    let gate: String?
    let held: Set<String>
    let crashing: Set<String>
    let spinning: Set<String>
    let allocating: Set<String>

    init?(environment: [String: String]) {
        func sources(_ variable: String) -> Set<String> {
            Set((environment[variable] ?? "").split(separator: ",").map(String.init))
        }
        gate = environment[ItemHookVariable.gate]
        held = sources(ItemHookVariable.hold)
        crashing = sources(ItemHookVariable.crash)
        spinning = sources(ItemHookVariable.spin)
        allocating = sources(ItemHookVariable.allocate)
        if gate == nil && crashing.isEmpty && spinning.isEmpty && allocating.isEmpty { return nil }
    }

    func beforeItem(_ source: String) {
        if crashing.contains(source) {
            // The default action, past the Swift runtime's own handler (which lets a raised,
            // not faulted, SIGSEGV return).
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        }
        if spinning.contains(source) {
            var turns: UInt64 = 0
            while turns != .max { turns &+= 1 }
        }
        if allocating.contains(source) {
            while true {
                guard let block = malloc(64 << 20) else { abort() }
                memset(block, 1, 64 << 20)
            }
        }
        hold(source)
    }

    func at(_ step: ItemHookStep) {
        hold(step.rawValue)
        mark(step.rawValue)
    }

    /// When the test lists `name`: `GATE/NAME.held`, then a wait for `GATE/NAME.go`.
    private func hold(_ name: String) {
        guard let gate, held.contains(name) else { return }
        _ = FileManager.default.createFile(atPath: ItemGate.file(name, ".held", in: gate), contents: Data("\(getpid())".utf8))
        while !FileManager.default.fileExists(atPath: ItemGate.file(name, ".go", in: gate)) { usleep(20_000) }
    }

    /// `GATE/NAME.reached`.
    private func mark(_ name: String) {
        guard let gate else { return }
        _ = FileManager.default.createFile(atPath: ItemGate.file(name, ".reached", in: gate), contents: Data("\(getpid())".utf8))
    }
}
