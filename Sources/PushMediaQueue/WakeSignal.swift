import Foundation
import NIOConcurrencyHelpers

/// A broadcast wake-up: ``signal()`` resumes every current waiter and leaves a pending wake-up
/// for the next ``wait(timeout:)`` when nobody is waiting, so a signal between two waits is not lost.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// Wakes every waiter (or the next one to come).
    func signal() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            if waiters.isEmpty { state.pending = true }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for a signal or `timeout`. Returns true when signalled, false on timeout or cancellation.
    func wait(timeout: Duration) async -> Bool {
        if state.withLockedValue({ state in
            defer { state.pending = false }
            return state.pending
        }) {
            return true
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.waitForSignal()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitForSignal() async {
        let id = state.withLockedValue { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state -> Bool in
                    if state.cancelled.remove(id) != nil { return true }
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume()
        }
    }
}
