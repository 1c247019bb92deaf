import Foundation
import PushMediaQueue

/// How fast a campaign's jobs finish and when the rest should be done, from the times its jobs
/// finished (pure: `pushmedia status` feeds it the queue's jobs).
public struct CampaignThroughput: Sendable, Equatable {
    /// Jobs finished per minute over the recent window; nil when fewer than two finished in it.
    public var perMinute: Double?
    /// Estimated seconds until the unfinished jobs are done: 0 when none is left, nil when the
    /// rate is unknown (too few finishes lately, or none at all: a stalled campaign).
    public var secondsLeft: Double?

    /// How far back finishes count towards the rate.
    public static let window: TimeInterval = 600

    /// The rate is the spacing of the finishes within `window` before `now` (the first finish
    /// starts the clock, so a campaign that began a minute ago is not diluted over ten).
    public static func estimate(finishedAt: [Date], remaining: Int, now: Date, window: TimeInterval = Self.window)
        -> CampaignThroughput
    {
        let recent = finishedAt.filter { $0 <= now && now.timeIntervalSince($0) <= window }
        return estimate(finishes: RecentFinishes(count: recent.count, first: recent.min()), remaining: remaining, now: now)
    }

    /// The same estimate from the queue's count of the finishes in the window
    /// (``JobQueue/finishes(campaign:since:)`` since `now - window`): no job is read.
    public static func estimate(finishes: RecentFinishes, remaining: Int, now: Date) -> CampaignThroughput {
        var perMinute: Double?
        if finishes.count >= 2, let first = finishes.first {
            let span = now.timeIntervalSince(first)
            if span > 0 { perMinute = Double(finishes.count - 1) / span * 60 }
        }
        if remaining <= 0 { return CampaignThroughput(perMinute: perMinute, secondsLeft: 0) }
        guard let perMinute, perMinute > 0 else { return CampaignThroughput(perMinute: perMinute, secondsLeft: nil) }
        return CampaignThroughput(perMinute: perMinute, secondsLeft: Double(remaining) / perMinute * 60)
    }

    /// "12.5 jobs/min, about 3 min left" for people.
    public var description: String {
        var parts: [String] = []
        if let perMinute { parts.append(String(format: "%.1f jobs/min", perMinute)) }
        switch secondsLeft {
        case 0?: parts.append("done")
        case let seconds?:
            parts.append(seconds < 90 ? "about \(Int(seconds.rounded())) s left" : "about \(Int((seconds / 60).rounded())) min left")
        case nil: parts.append(perMinute == nil ? "no recent finishes to estimate the time left" : "time left unknown")
        }
        return parts.joined(separator: ", ")
    }
}
