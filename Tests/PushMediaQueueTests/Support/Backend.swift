import Testing

/// The queue backends every contract test runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The backends to test: PostgreSQL only when a server is configured, or in CI (where a missing
    /// server then fails loudly). Outside CI without a server, the skip is shown by the
    /// "PostgreSQL queue" suite's `.enabled(if:)` reason.
    static var testable: [Backend] {
        TestEnvironment.postgresTestsEnabled ? allCases : [.sqlite]
    }
}
