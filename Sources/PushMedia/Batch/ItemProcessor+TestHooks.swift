import Foundation

#if DEBUG
/// Hooks the tests put in an item's way, compiled into debug builds only (the tests'
/// `pushmedia`); release builds (`scripts/run-fixtures`, the container) have none of them.
///
/// - A gate: a test that needs something to be true mid-run (a run holding its output folder,
///   four jobs finished and the fifth not yet) says so through the gate instead of through how
///   long the work usually takes, so it passes on a busy machine. With `PUSHMEDIA_TEST_GATE` set
///   to a folder and `PUSHMEDIA_TEST_HOLD` to a comma-separated list of sources, an item whose
///   source is listed creates `GATE/NAME.held` before its work starts and waits until
///   `GATE/NAME.go` exists (NAME is the source with every `/` made `_`).
///   The `.held` file holds the id of the process the item runs in (an item process, or
///   `process --in-process` itself), for a test to kill it there. Steps other than items are
///   held the same way under their own names (``hold(_:)``: `prepare`, libvips' and the face
///   model's start), and some say they were passed (``mark(_:)``: `GATE/NAME.reached`).
/// - A crash: an item whose source is listed in `PUSHMEDIA_TEST_CRASH` (comma-separated) raises
///   SIGSEGV when its work starts, as a decoder that crashes on that file every time would.
/// - A spin: an item listed in `PUSHMEDIA_TEST_SPIN` loops forever, checking no deadline, as a
///   C loop that ignores its deadline would.
/// - A runaway allocation: an item listed in `PUSHMEDIA_TEST_ALLOCATE` allocates and touches
///   64 MB blocks without end, as a decoder trusting a hostile size would, and aborts when an
///   allocation fails (as Swift's runtime does).
public enum TestHooks {
    private static let environment = ProcessInfo.processInfo.environment
    static let gate = environment["PUSHMEDIA_TEST_GATE"]
    static let held = sources("PUSHMEDIA_TEST_HOLD")
    static let crashing = sources("PUSHMEDIA_TEST_CRASH")
    static let spinning = sources("PUSHMEDIA_TEST_SPIN")
    static let allocating = sources("PUSHMEDIA_TEST_ALLOCATE")

    private static func sources(_ variable: String) -> Set<String> {
        Set((environment[variable] ?? "").split(separator: ",").map(String.init))
    }

    /// Runs before an item's work, on the item's own thread (it may block).
    static func beforeItem(_ source: String) {
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

    /// Holds the step `name` (an item's source, or a step's name) at the gate when the test
    /// lists it in `PUSHMEDIA_TEST_HOLD`: `GATE/NAME.held`, then a wait for `GATE/NAME.go`.
    public static func hold(_ name: String) {
        guard let gate, held.contains(name) else { return }
        let path = path(of: name, in: gate)
        FileManager.default.createFile(atPath: path + ".held", contents: Data("\(getpid())".utf8))
        while !FileManager.default.fileExists(atPath: path + ".go") { usleep(20_000) }
    }

    /// Says the step `name` was passed, when there is a gate: creates `GATE/NAME.reached`.
    public static func mark(_ name: String) {
        guard let gate else { return }
        FileManager.default.createFile(atPath: path(of: name, in: gate) + ".reached", contents: Data("\(getpid())".utf8))
    }

    /// `GATE/NAME` for the step `name`, every `/` of it made `_` (as the tests' `ItemGate` names it).
    private static func path(of name: String, in gate: String) -> String {
        gate + "/" + name.replacingOccurrences(of: "/", with: "_")
    }
}
#endif
