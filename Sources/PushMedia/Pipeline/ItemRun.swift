import Foundation
import PushMediaModel

/// What every stage of one item shares: the input, the profile and run settings, the deadline,
/// and the warnings collected so far. Stages hand each other their results as values (``Source``
/// → ``ProbedImage`` / ``ProbedMedia`` → ``Decoded`` → ``Framed`` → ``Encoded`` → attachments);
/// nothing else travels through here.
final class ItemRun {
    let input: InputFile
    let profile: Profile
    let options: ProcessingOptions
    /// When the item's time runs out.
    private(set) var deadline: Deadline
    /// The limit behind ``deadline``, in seconds, for messages.
    private(set) var timeoutSeconds: Double
    /// Lossy choices and partial results worth telling the user about.
    var warnings: [String] = []
    /// What the manifest says about the input, learnt stage by stage; a failed item carries
    /// whatever was learnt before the failure. Stages record here and never read it.
    private(set) var facts = Facts()

    init(input: InputFile, profile: Profile, options: ProcessingOptions) {
        self.input = input
        self.profile = profile
        self.options = options
        self.timeoutSeconds = profile.limits.timeoutSeconds
        self.deadline = .after(Profile.duration(seconds: profile.limits.timeoutSeconds))
    }

    /// The manifest's description of the input.
    struct Facts {
        var sourceBytes: Int?
        var sourceSHA256: String?
        var kind: MediaKind = .unknown
        var probe: Probe?
    }

    func record(bytes: Int, sha256: String? = nil) {
        facts.sourceBytes = bytes
        if let sha256 { facts.sourceSHA256 = sha256 }
    }

    func record(kind: MediaKind, probe: Probe? = nil) {
        facts.kind = kind
        if let probe { facts.probe = probe }
    }

    func record(subject: UnitPoint, strategy: SubjectStrategy, faces: [UnitRect]?) {
        facts.probe?.subject = subject
        facts.probe?.subjectStrategy = strategy
        facts.probe?.faces = faces
    }

    /// Movies and audio take longer than images (transcoding): once the bytes say the input is
    /// one, the item's time is `limits.mediaTimeoutSeconds` from now.
    func useMediaTimeLimit() {
        timeoutSeconds = profile.limits.mediaTimeoutSeconds
        deadline = .after(Profile.duration(seconds: profile.limits.mediaTimeoutSeconds))
    }

    /// Runs one stage after checking that the item's time has not run out.
    func stage<T>(_ name: String, _ body: () throws -> T) throws -> T {
        if isPastDeadline {
            throw ItemError(.timeout, "time limit of \(String(format: "%g", timeoutSeconds)) s reached before \(name)")
        }
        return try body()
    }

    /// True once the item's time has run out.
    var isPastDeadline: Bool { deadline.hasPassed }

    /// The error of work the deadline stopped, e.g. `timedOut("decoding")`.
    func timedOut(_ work: String) -> ItemError {
        ItemError(.timeout, "\(work) stopped at the time limit of \(String(format: "%g", timeoutSeconds)) s")
    }
}

/// Run-wide settings that are not part of the profile.
public struct ProcessingOptions: Sendable {
    /// Where output files go.
    public var outputDirectory: URL
    /// Joined with file names to make attachment URLs.
    public var baseURL: String?
    /// Flat, or in subfolders by hash (catalogue-sized campaigns).
    public var layout: OutputLayout
    /// Called at the steps of each item (``ItemHooks``): the tests' gates; nil in the product.
    public var hooks: (any ItemHooks)?
    /// Where the output files are recorded as they are stored (``OutputLedger``); nil: nowhere.
    public var ledger: OutputLedger?

    public init(
        outputDirectory: URL, baseURL: String? = nil, layout: OutputLayout = .flat, hooks: (any ItemHooks)? = nil,
        ledger: OutputLedger? = nil
    ) {
        self.outputDirectory = outputDirectory
        self.baseURL = baseURL
        self.layout = layout
        self.hooks = hooks
        self.ledger = ledger
    }
}
