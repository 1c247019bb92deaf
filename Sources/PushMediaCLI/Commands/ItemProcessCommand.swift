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

    @OptionGroup var options: ItemProcessOptions

    func run() throws {
        let status = ItemProcessServer.serve(
            logger: options.global.bootstrapLogging(), memoryLimitMB: options.memoryLimit, priority: options.nice, hooks: CommandHooks.items)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `pushmedia item-fork-server`: the item processes' fork server (`ItemForkServer`), which
/// `process` and `worker` start once; it forks each item process. Runs before any thread of
/// this process starts (see `PushMediaMain`). Not for people: hidden from the help.
struct ItemForkServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item-fork-server",
        abstract: "Fork item processes for a supervising pushmedia process (internal).",
        shouldDisplay: false)

    @OptionGroup var options: ItemProcessOptions

    func run() throws {
        let status = ItemProcessServer.serveForks(
            logger: options.global.bootstrapLogging(), memoryLimitMB: options.memoryLimit, priority: options.nice, hooks: CommandHooks.items)
        if status != 0 { throw ExitCode(status) }
    }
}

/// What the supervisor passes an item process, or the fork server that makes them.
struct ItemProcessOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "Address space each item process may grow by once started, in MB (0: no limit).")
    var memoryLimit: Int = 0

    @Option(name: .long, help: "Nice value to take before any thread starts (the supervisor's).")
    var nice: Int32?
}
