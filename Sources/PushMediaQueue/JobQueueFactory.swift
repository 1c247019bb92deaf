import Logging

/// Opens the queue backend a ``QueueURL`` names.
public enum JobQueueFactory {
    /// Opens (creating and migrating as needed) the queue at `url`.
    /// - Throws: ``JobQueueError/openFailed(url:reason:)``.
    public static func open(
        _ url: QueueURL, options: JobQueueOptions = JobQueueOptions(),
        logger: Logger = Logger(label: "pushmedia.queue")
    ) async throws -> any JobQueue {
        switch url {
        case .sqlite(let path):
            return try SQLiteJobQueue(path: path, options: options)
        case .postgres(let configuration):
            return try await PostgresJobQueue(configuration: configuration, options: options, logger: logger)
        }
    }

    /// Parses `url` (see ``QueueURL``) and opens the queue.
    /// - Throws: ``QueueURLError`` for a bad URL, ``JobQueueError`` when the queue cannot be opened.
    public static func open(
        url: String, options: JobQueueOptions = JobQueueOptions(),
        logger: Logger = Logger(label: "pushmedia.queue")
    ) async throws -> any JobQueue {
        try await open(QueueURL(parsing: url), options: options, logger: logger)
    }
}
