/// Steps of an item's processing, and of the processes around the items, at which a caller acts:
/// the tests' `pushmedia-testing` holds them at a gate, crashes or spins there, so a test states
/// "the run is in the middle of that item" through the code instead of through timing
/// (docs/development.md). The product passes none (``ProcessingOptions/hooks`` is nil), and then
/// takes the same code paths.
///
/// The calls come on the thread doing the work and may block it: a held step holds exactly that
/// work, and nothing else of the process.
public protocol ItemHooks: Sendable {
    /// Before an item's work starts (after its profile was checked), in the process that does
    /// it: an item process, or the command itself with `--in-process`.
    func beforeItem(_ source: String)

    /// At `step`.
    func at(_ step: ItemHookStep)
}

/// The named steps ``ItemHooks/at(_:)`` is called at, named as the tests' gate names them.
public enum ItemHookStep: String, Sendable, CaseIterable {
    /// libvips and the face model are about to start (``ItemProcessor/prepareNow(for:hooks:)``).
    case prepare
    /// They have started, or failed to.
    case prepared
    /// An item process read the end of its requests: it exits once its preparation is done.
    case itemProcessInputEnded = "item-process-input-ended"
}
