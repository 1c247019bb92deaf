import Foundation

/// The outcome for one published URL.
public struct URLResult: Sendable {
    public var target: PublishedURL
    public var observation: Observation
    public var verdict: Verdict

    public init(target: PublishedURL, observation: Observation, verdict: Verdict) {
        self.target = target
        self.observation = observation
        self.verdict = verdict
    }
}

/// Verifies a stream of published URLs: pulls the next one only when a fetch may start, so
/// memory holds the fetches in flight whatever the manifest's size, at most
/// ``connectionsPerHost`` at once to any host.
public struct Verifier: Sendable {
    public let prober: URLProber
    public let connectionsPerHost: Int
    /// Fetches in flight at most, over all hosts.
    public let inFlight: Int

    public init(prober: URLProber, connectionsPerHost: Int, hosts: Int) {
        self.prober = prober
        self.connectionsPerHost = max(1, connectionsPerHost)
        inFlight = min(256, self.connectionsPerHost * max(1, hosts))
    }

    /// Fetches and judges every URL `next` gives (until it returns nil), calling `onResult` with
    /// each as it finishes (in the order they finish).
    public func run(next: () throws -> PublishedURL?, onResult: (URLResult) throws -> Void) async throws {
        let gate = HostGate(limit: connectionsPerHost)
        try await withThrowingTaskGroup(of: URLResult.self) { group in
            var running = 0
            var exhausted = false
            while true {
                while !exhausted, running < inFlight {
                    guard let target = try next() else {
                        exhausted = true
                        break
                    }
                    let prober = self.prober
                    group.addTask {
                        let host = URL(string: target.url).flatMap(RedirectChain.authority(of:)) ?? target.url
                        await gate.enter(host)
                        let observation = await prober.observe(target)
                        await gate.leave(host)
                        return URLResult(target: target, observation: observation, verdict: Evaluator.evaluate(target, observation))
                    }
                    running += 1
                }
                guard running > 0, let result = try await group.next() else { return }
                running -= 1
                try onResult(result)
            }
        }
    }
}
