import PushMediaQueue
import Testing

@Suite("RetryPolicy")
struct RetryPolicyTests {
    @Test("exponential growth up to the cap without jitter")
    func exponential() {
        let policy = RetryPolicy(base: .seconds(2), factor: 3, cap: .seconds(100), jitter: 0)
        #expect(policy.delay(afterAttempt: 1) == .seconds(2))
        #expect(policy.delay(afterAttempt: 2) == .seconds(6))
        #expect(policy.delay(afterAttempt: 3) == .seconds(18))
        #expect(policy.delay(afterAttempt: 4) == .seconds(54))
        #expect(policy.delay(afterAttempt: 5) == .seconds(100))
        #expect(policy.delay(afterAttempt: 50) == .seconds(100))
        #expect(policy.delay(afterAttempt: 0) == .seconds(2))
    }

    @Test(
        "jitter scales within ±fraction using the injected random source",
        arguments: [
            (0.0, 8.0), (0.5, 10.0), (0.75, 11.0), (0.999_999, 11.999_998),
        ])
    func jitter(_ random: Double, _ expectedSeconds: Double) {
        let policy = RetryPolicy(base: .seconds(10), factor: 2, cap: .seconds(600), jitter: 0.2, random: { random })
        let delay = policy.delay(afterAttempt: 1)
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        #expect(abs(seconds - expectedSeconds) < 0.001, "got \(delay)")
    }

    @Test("jitter never exceeds the cap")
    func jitterCapped() {
        let policy = RetryPolicy(base: .seconds(60), factor: 2, cap: .seconds(60), jitter: 0.5, random: { 0.99 })
        #expect(policy.delay(afterAttempt: 3) == .seconds(60))
    }

    @Test("the default policy stays within its bounds")
    func defaults() {
        let policy = RetryPolicy()
        for attempt in 1...20 {
            let delay = policy.delay(afterAttempt: attempt)
            #expect(delay >= .seconds(4) && delay <= .seconds(600))
        }
    }
}
