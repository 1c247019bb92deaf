import Foundation
import PostgresNIO

extension PostgresJobQueue {
    /// Runs `operation`, retrying it (up to ``connectionRetries`` times, with a growing short delay)
    /// when it fails because the server is unreachable or restarting, so a server restart does not
    /// fail (or lose) queue operations. Other errors are thrown at once.
    func withConnectionRetry<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                do {
                    return try await operation()
                } catch let error as PostgresTransactionError {
                    // Surface our own errors (lease lost, not found…) and connection errors unwrapped.
                    throw error.closureError ?? error.beginError ?? error.commitError ?? error
                }
            } catch let error where Self.isConnectionError(error) {
                attempt += 1
                guard attempt <= connectionRetries, !Task.isCancelled else {
                    throw JobQueueError.connectionFailed(reason: "\(String(reflecting: error))")
                }
                logger.warning(
                    "PostgreSQL connection error; retrying",
                    metadata: ["attempt": "\(attempt)", "error": "\(String(reflecting: error))"])
                try await Task.sleep(for: .milliseconds(250 * attempt))
            }
        }
    }

    /// Whether `error` means the connection (not the statement) failed.
    static func isConnectionError(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else {
            return error is ChannelError || error is IOError
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .messageDecodingFailure:
            return true
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return false }
            // Class 08: connection exception; 57P01-57P03: admin/crash shutdown, cannot connect now.
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }
}
