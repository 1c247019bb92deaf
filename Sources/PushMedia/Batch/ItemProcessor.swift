import Foundation
import Logging
import PushMediaModel

/// Turns one input file into one manifest item. Never throws: every failure becomes a failed
/// item with an error code, so a batch always finishes.
public struct ItemProcessor: Sendable {
    public var profile: Profile
    public var options: ProcessingOptions
    var logger: Logger

    public init(profile: Profile, options: ProcessingOptions, logger: Logger = Logger(label: "pushmedia")) {
        self.profile = profile
        self.options = options
        self.logger = logger
    }

    /// Starts libvips, and loads the face model when `profile` searches faces, on a thread of its
    /// own in `group`, so that the first items find both ready instead of one doing it while the
    /// others wait (`pushmedia process` calls it while it sets up the queue, and waits on the
    /// group before it exits). libvips' environment is set on the calling thread first, before
    /// other threads read the environment. Failures are left to the items, which start libvips
    /// themselves and report them.
    public static func prepare(for profile: Profile, in group: DispatchGroup, hooks: (any ItemHooks)? = nil) {
        Vips.setEnvironment()
        DispatchQueue.global().async(group: group) { prepareNow(for: profile, hooks: hooks) }
    }

    /// Starts libvips and, for `crop: smart`, loads the face model, on this thread (the item
    /// processes' fork server does it once, before it forks any). `hooks` are called at
    /// ``ItemHookStep/prepare`` and ``ItemHookStep/prepared``.
    public static func prepareNow(for profile: Profile, hooks: (any ItemHooks)? = nil) {
        hooks?.at(.prepare)
        defer { hooks?.at(.prepared) }
        Vips.setEnvironment()
        guard (try? Vips.start()) != nil else { return }
        if profile.crop == .smart { FaceDetector.loadModel() }
    }

    /// Processes one file synchronously (blocking: libvips does the work on this thread and its own).
    /// The bytes say which path it takes: ``ImagePath`` or ``MediaPath``.
    /// A profile with ``Profile/problems`` fails the item with `invalid_profile` before any
    /// value of it is used. A path that is not valid UTF-8 (``InputFile/pathEncoding``) is opened
    /// by its bytes for the item's duration, and the stages read `/proc/self/fd/N` (``OpenedInput``).
    public func process(_ input: InputFile) -> Item {
        let problems = profile.problems
        guard problems.isEmpty else {
            return .failed(source: input.source, error: ItemError(.invalidProfile, "the profile is not usable: " + problems.joined(separator: "; ")))
        }
        options.hooks?.beforeItem(input.source)
        let opened: OpenedInput
        do {
            opened = try OpenedInput(input)
        } catch {
            let run = ItemRun(input: input, profile: profile, options: options)
            return item(run, status: .failed, error: error as? ItemError ?? ItemError(.unreadableInput, "\(error)"))
        }
        defer { opened.close() }
        let run = ItemRun(input: opened.input, profile: profile, options: options)
        do {
            try Vips.start()
            let source = try run.stage("read") { try Source.read(run) }
            let attachments =
                switch source.kind {
                case .video, .audio: try MediaPath.process(source, run)
                default: try ImagePath.process(source, run)
                }
            return item(run, status: .ok, attachments: attachments)
        } catch let error as ItemError {
            logger.debug("item failed", metadata: ["source": "\(input.source)", "code": "\(error.code)"])
            return item(run, status: .failed, error: error)
        } catch {
            logger.error("unexpected failure", metadata: ["source": "\(input.source)", "error": "\(error)"])
            return item(run, status: .failed, error: ItemError(.internalError, "\(error)"))
        }
    }

    private func item(_ run: ItemRun, status: Item.Status, error: ItemError? = nil, attachments: [Attachment] = []) -> Item {
        let facts = run.facts
        return Item(
            source: run.input.source, sourceEncoding: run.input.sourceEncoding, sourceSHA256: facts.sourceSHA256, sourceBytes: facts.sourceBytes,
            kind: facts.kind,
            status: status, error: error, probe: facts.probe, attachments: attachments, warnings: run.warnings,
            delivery: NotificationDelivery(attachments: attachments, target: run.profile.delivery))
    }
}
