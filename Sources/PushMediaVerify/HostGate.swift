/// At most `limit` fetches at once per host: the phones' downloads of one campaign reach a CDN
/// from many places, verify's from one, and a CDN (or its rate limits) must not see verify as
/// an attack. Waiters go in the order they came.
actor HostGate {
    private let limit: Int
    private var active: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Returns once a fetch to `host` may start.
    func enter(_ host: String) async {
        if active[host, default: 0] < limit {
            active[host, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Hands the place of a finished fetch to `host`'s next waiter.
    func leave(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            active[host, default: 1] -= 1
            if active[host] == 0 { active[host] = nil }
        }
    }
}
