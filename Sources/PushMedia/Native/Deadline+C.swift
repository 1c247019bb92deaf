import CDeadline

extension Deadline {
    /// The deadline as every C entry point takes it.
    var native: pm_deadline { pm_deadline(monotonic_ns: monotonicNanoseconds) }

    /// No deadline, as C takes it (`Optional<Deadline>.none`).
    static let nativeNone = pm_deadline(monotonic_ns: 0)
}

extension Optional where Wrapped == Deadline {
    /// The deadline as C takes it, or none.
    var native: pm_deadline { self?.native ?? Deadline.nativeNone }
}
