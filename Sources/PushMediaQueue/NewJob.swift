import Foundation

/// A job to enqueue. Campaign + source + profile identify it: enqueueing the same triple again
/// returns the existing job.
public struct NewJob: Sendable, Hashable {
    /// The campaign.
    public var campaign: String
    /// The media source (relative path or http(s) URL).
    public var source: String
    /// The profile key.
    public var profile: String
    /// Attempts allowed; `nil` uses the queue's default (``Job/defaultMaxAttempts`` unless configured).
    public var maxAttempts: Int?
    /// When the job may first run; `nil` means now.
    public var runAt: Date?

    /// Creates a job request.
    public init(campaign: String, source: String, profile: String, maxAttempts: Int? = nil, runAt: Date? = nil) {
        self.campaign = campaign
        self.source = source
        self.profile = profile
        self.maxAttempts = maxAttempts
        self.runAt = runAt
    }

    /// The identity key (campaign, source, profile).
    var identity: JobIdentity { JobIdentity(campaign: campaign, source: source, profile: profile) }
}
