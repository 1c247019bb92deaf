/// The job counts of one campaign.
public struct CampaignJobCounts: Sendable, Hashable {
    /// The campaign.
    public var campaign: String
    /// Its counts by state.
    public var counts: JobCounts

    /// Creates a campaign's counts.
    public init(campaign: String, counts: JobCounts) {
        self.campaign = campaign
        self.counts = counts
    }
}
