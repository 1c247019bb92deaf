import Foundation
import PushMediaFetch
import Testing

/// A resolver with fixed answers for some names, falling back to `getaddrinfo`.
struct FakeResolver: HostResolver {
    var answers: [String: [IPAddress]] = [:]
    var failing: Set<String> = []

    struct Failure: Error, CustomStringConvertible {
        var description: String { "fake resolution failure" }
    }

    func resolve(host: String, port: Int) async throws -> [IPAddress] {
        if failing.contains(host) { throw Failure() }
        if let answer = answers[host] { return answer }
        return try await SystemHostResolver().resolve(host: host, port: port)
    }
}

/// A fresh, empty directory for one test's temporary files.
func makeScratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("pushmedia-fetch-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The names of the files in `directory`.
func filesIn(_ directory: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
}

/// A test configuration writing into `directory`. Its timeouts are out of the way (minutes) but
/// where a test sets them: a test that is not about a timeout must not depend on how fast a busy
/// machine runs it (read timeouts of 5 s fired on a loaded 2-core machine for 4 KB answers).
func testConfiguration(
    _ directory: URL,
    allowPrivate: Bool = true,
    policy: AddressPolicy = .standard,
    maxBytes: Int64 = 200 * 1024 * 1024,
    readTimeout: Duration = .seconds(300),
    totalTimeout: Duration = .seconds(600),
    maxRedirects: Int = 5
) -> SourceFetcherConfiguration {
    SourceFetcherConfiguration(
        version: "test",
        maxBytes: maxBytes,
        connectTimeout: .seconds(300),
        readTimeout: readTimeout,
        totalTimeout: totalTimeout,
        maxRedirects: maxRedirects,
        allowPrivateSources: allowPrivate,
        addressPolicy: policy,
        temporaryDirectory: directory
    )
}

/// Runs `body` with a fetcher and always shuts it down, then removes `directory`.
func withFetcher<T>(
    _ configuration: SourceFetcherConfiguration,
    resolver: any HostResolver = SystemHostResolver(),
    _ body: (SourceFetcher) async throws -> T
) async throws -> T {
    let fetcher = SourceFetcher(configuration: configuration, resolver: resolver)
    do {
        let result = try await body(fetcher)
        try await fetcher.shutdown()
        return result
    } catch {
        try? await fetcher.shutdown()
        throw error
    }
}

/// Fetches `url` expecting a ``SourceFetchError`` of `kind`; returns it (or `nil` after recording an issue).
@discardableResult
func expectFetchError(
    _ kind: SourceFetchError.Kind,
    _ fetcher: SourceFetcher,
    _ url: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> SourceFetchError? {
    do {
        let result = try await fetcher.fetch(url)
        try? result.removeFile()
        Issue.record("expected \(kind.rawValue) for \(url), got a download of \(result.byteCount) bytes", sourceLocation: sourceLocation)
        return nil
    } catch let error as SourceFetchError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(error.code == kind.rawValue, sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected SourceFetchError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
