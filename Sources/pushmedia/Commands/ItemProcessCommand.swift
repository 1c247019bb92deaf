import ArgumentParser
import PushMediaWorker

/// `pushmedia item-process`: the child `process` and `worker` run each item's media work in
/// (`ItemProcessPool`), reading requests on standard input and answering on standard output.
/// Not for people: hidden from the help.
struct ItemProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item-process",
        abstract: "Process items for a supervising pushmedia process (internal).",
        shouldDisplay: false)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let status = ItemProcessServer.serve(logger: global.bootstrapLogging())
        if status != 0 { throw ExitCode(status) }
    }
}
