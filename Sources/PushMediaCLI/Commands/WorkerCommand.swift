import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import PushMedia
import PushMediaFetch
import PushMediaModel
import PushMediaObjectStore
import PushMediaQueue
import PushMediaWorker
import ServiceLifecycle

/// `pushmedia worker`: claims and processes jobs until SIGTERM/SIGINT.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claim media jobs from the queue and process them until stopped (SIGTERM/SIGINT).",
        usage: """
            pushmedia worker --queue <url> --out <dir> [--root <dir>]
                     [--concurrency <n>] [--metrics-port <port>] [--campaign <id>]
                     [--grace-period <s>] [--lease-seconds <s>] [--drain] [...]
            """,
        discussion: """
            On SIGTERM or SIGINT the worker stops claiming, lets running jobs finish within the grace \
            period, and gives the rest back to the queue for another worker. Outputs go to --out, which \
            several workers (on several machines) may share as a mounted volume. With --drain the \
            same happens on a signal, and the worker then exits 130 (SIGINT) or 143 (SIGTERM): the \
            queue was not drained. A second signal ends it at once.
            """
    )

    @OptionGroup var queue: QueueOption

    @Option(name: .long, help: "Output folder shared by the workers, or s3://BUCKET/PREFIX (default: $PUSHMEDIA_OUT).")
    var out: String?

    @Option(name: .long, help: "Input root that relative sources are read from (default: $PUSHMEDIA_ROOT, else the current folder).")
    var root: String?

    @Option(name: .long, help: "Jobs processed at once (default: $PUSHMEDIA_CONCURRENCY, else the number of cores).")
    var concurrency: Int?

    @Option(
        name: .long,
        help: "Serve Prometheus metrics on this port at /metrics, also while draining (default: $PUSHMEDIA_METRICS_PORT; none when unset).")
    var metricsPort: Int?

    @Option(name: .long, help: "Only claim jobs of this campaign.")
    var campaign: String?

    @Option(name: .long, help: "Seconds running jobs may take to finish after SIGTERM before they are given back.")
    var gracePeriod: Int = 30

    @Option(name: .long, help: "Seconds a claim's lease lasts (a running job's heartbeat extends it).")
    var leaseSeconds: Int = 60

    @Option(name: .long, help: "Output files side by side (flat) or in subfolders by hash (sharded, the default: catalogue-sized campaigns).")
    var layout: OutputLayout = .sharded

    @Flag(name: .long, help: "Download URL sources from private, loopback and link-local addresses too (internal CDNs).")
    var allowPrivateSources = false

    @Flag(name: .long, help: "Exit once no job (of --campaign, if given) is queued, running or retrying.")
    var drain = false

    @OptionGroup var isolation: ItemIsolationOptions

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let logger = global.bootstrapLogging(default: .info)
        let outText = try Setting.required(out, Setting.out, flagName: "--out")
        let givenRoot = Setting.value(root, Setting.root)
        let root = URL(fileURLWithPath: givenRoot ?? FileManager.default.currentDirectoryPath)
        let concurrency = try Setting.int(
            concurrency, Setting.concurrency, flagName: "--concurrency", default: ProcessInfo.processInfo.activeProcessorCount)
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        let metricsPort: Int? =
            try metricsPort
            ?? Setting.environment(Setting.metricsPort).map { text in
                guard let port = Int(text) else { throw ValidationError("\(Setting.metricsPort) must be a port number, got \"\(text)\"") }
                return port
            }
        if let metricsPort, !(1...65535).contains(metricsPort) { throw ValidationError("--metrics-port must be 1…65535") }
        guard gracePeriod >= 0, leaseSeconds >= 5 else { throw ValidationError("--grace-period ≥ 0 and --lease-seconds ≥ 5") }
        // A bucket is checked before any work (exit 2 when it cannot be used); a folder is made.
        var bucket: BucketOutput?
        var out = FileManager.default.temporaryDirectory
        switch try await OpenedOutput.open(outText, logger: logger) {
        case .folder(let folder):
            // The same rule as `process`: the outputs apart from the inputs. The default root (the
            // current folder) may hold the output folder, as `--out out` in a container's working
            // folder does; it may not be it or lie inside it.
            if let overlap = OutputPlacement.overlap(input: root, output: folder), givenRoot != nil || overlap != .outputInsideInput {
                throw ValidationError(
                    OutputPlacement.message(
                        overlap, input: root, output: folder, inputName: givenRoot == nil ? "the current folder (the default --root)" : "--root"))
            }
            out = folder
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            // What a killed worker was writing; other workers may share the folder, so only
            // temporaries no item can still be writing.
            let unused = Date() - OutputLeftovers.unusedForWorkers
            let removed = OutputLeftovers.remove(in: out, modifiedBefore: unused)
            if removed > 0 { logger.info("removed temporary files a stopped worker left", metadata: ["files": "\(removed)"]) }
        case .bucket(let opened): bucket = opened
        }

        let registry = PrometheusCollectorRegistry()
        var metricsFactory = PrometheusMetricsFactory(registry: registry)
        metricsFactory.durationHistogramBuckets[QueueWorkerMetrics.claimDurationLabel] = QueueWorkerMetrics.claimDurationBuckets
        MetricsSystem.bootstrap(metricsFactory)

        let queue = try await openQueue(self.queue, logger: logger)
        var fetchConfiguration = SourceFetcherConfiguration(version: PushMediaVersion.string)
        fetchConfiguration.allowPrivateSources = allowPrivateSources
        let fetcher = SourceFetcher(configuration: fetchConfiguration, logger: logger)
        var handler = MediaJobHandler(root: root, outputDirectory: out, queue: queue, fetcher: fetcher, logger: logger, bucket: bucket)
        handler.layout = layout
        handler.hooks = CommandHooks.items
        // Each item's media work runs in a child process: a crash costs that item's attempt.
        handler.isolation = try self.isolation.pool(logger: logger)
        let jobHandler = handler
        let worker = QueueWorker(
            queue: queue,
            configuration: QueueWorker.Configuration(
                concurrency: concurrency, campaign: campaign, leaseDuration: .seconds(leaseSeconds),
                shutdownGracePeriod: .seconds(gracePeriod), resultMetadata: MediaJobHandler.logMetadata(forResult:)),
            logger: logger, handler: { try await jobHandler.handle($0) })

        logger.notice(
            "worker started",
            metadata: [
                "owner": "\(worker.configuration.owner)", "concurrency": "\(concurrency)", "out": "\(bucket?.location.description ?? out.path)",
            ])
        // Draining ends by itself, so signals are caught here rather than by a service group: the
        // first one begins the graceful shutdown (stop claiming, finish within the grace period,
        // give the rest back uncounted), and the exit status then says the drain did not finish.
        let grace = gracePeriod
        let interruption =
            drain
            ? Interruption { signal in
                worker.beginShutdown()
                printError(
                    "\(Interruption.name(signal)): stopping the drain: no more jobs are claimed; the running ones get \(grace) s to finish")
            } : nil
        do {
            if drain, let metricsPort {
                // Draining with metrics: the server runs beside the drain and closes when it ends
                // (the drain ending shuts the group down). Signals act as without metrics.
                let draining = DrainingWorker(worker: worker, campaign: campaign)
                let group = ServiceGroup(
                    configuration: ServiceGroupConfiguration(
                        services: [
                            .init(service: draining, successTerminationBehavior: .gracefullyShutdownGroup),
                            .init(service: MetricsServer(port: metricsPort, registry: registry, health: { worker.health }, logger: logger)),
                        ],
                        logger: logger))
                try await group.run()
            } else if drain {
                try await worker.runUntilDrained(campaign: campaign)
            } else {
                var services: [any Service] = [worker, QueueGauges(queue: queue, logger: logger)]
                if let metricsPort {
                    services.append(MetricsServer(port: metricsPort, registry: registry, health: { worker.health }, logger: logger))
                }
                let group = ServiceGroup(
                    configuration: ServiceGroupConfiguration(
                        services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
                try await group.run()
            }
        } catch {
            try? await fetcher.shutdown()
            await queue.close()
            printError("error: worker stopped: \(error)")
            throw ExitCode(2)
        }
        try? await fetcher.shutdown()
        await queue.close()
        await handler.isolation?.close()
        logger.notice("worker stopped", metadata: ["owner": "\(worker.configuration.owner)"])
        if let signal = interruption?.signal {
            printError("\(Interruption.name(signal)): stopped before the queue was drained; the jobs in progress were finished or given back")
            throw ExitCode(128 + signal)
        }
    }
}

/// `pushmedia healthcheck`: exit 0 when the local worker's metrics endpoint answers.
struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when a worker's metrics endpoint on this machine answers (for container HEALTHCHECKs).")

    @Option(name: .long, help: "Metrics port (default: $PUSHMEDIA_METRICS_PORT, else 9464).")
    var port: Int?

    func run() throws {
        let port = try Setting.int(port, Setting.metricsPort, flagName: "--port", default: 9464)
        switch HealthProbe.get(port: port, path: "/healthz") {
        case .success(let status) where status == 200:
            print("ok")
        case .success(let status):
            printError("unhealthy: HTTP \(status) from 127.0.0.1:\(port)/healthz")
            throw ExitCode(1)
        case .failure(let reason):
            printError("unhealthy: \(reason)")
            throw ExitCode(1)
        }
    }
}

/// `worker --drain` as a service, so that a metrics server can run beside it: it returns when the
/// queue (or the campaign) is drained.
struct DrainingWorker: Service {
    let worker: QueueWorker
    let campaign: String?

    func run() async throws {
        try await worker.runUntilDrained(campaign: campaign)
    }
}
