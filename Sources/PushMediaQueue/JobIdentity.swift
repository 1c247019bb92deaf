/// The unique identity of a job: campaign + source + profile.
struct JobIdentity: Hashable, Sendable {
    var campaign: String
    var source: String
    var profile: String
}

extension Job {
    var identity: JobIdentity { JobIdentity(campaign: campaign, source: source, profile: profile) }
}
