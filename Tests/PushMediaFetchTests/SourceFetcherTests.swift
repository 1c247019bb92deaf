import Foundation
import PushMediaFetch
import Testing

@Suite("SourceFetcher against a local HTTP server")
struct SourceFetcherTests {
    // MARK: Success

    @Test func downloadsExactBytesToATemporaryFile() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory)) { fetcher in
                let result = try await fetcher.fetch(server.url("/file/123457/photo.jpg?type=image/jpeg&token=SECRET"))
                #expect(result.byteCount == 123_457)
                #expect(result.contentType == "image/jpeg")
                #expect(result.suggestedFileName == "photo.jpg")
                #expect(result.redirectCount == 0)
                #expect(result.fileURL.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                let data = try Data(contentsOf: result.fileURL)
                #expect(Array(data) == TestHTTPServer.pattern(123_457))
                try result.removeFile()
                #expect(!FileManager.default.fileExists(atPath: result.fileURL.path))
                try result.removeFile() // already gone: not an error
                #expect(filesIn(directory).isEmpty)
            }
        }
    }

    @Test func chunkedBodyWithinLimitAndExactLimit() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory, maxBytes: 100_000)) { fetcher in
                let chunked = try await fetcher.fetch(server.url("/chunked/100000"))
                #expect(chunked.byteCount == 100_000)
                #expect(Array(try Data(contentsOf: chunked.fileURL)) == TestHTTPServer.pattern(100_000))
                try chunked.removeFile()
                let exact = try await fetcher.fetch(server.url("/file/100000"))
                #expect(exact.byteCount == 100_000)
                try exact.removeFile()
                let empty = try await fetcher.fetch(server.url("/file/0"))
                #expect(empty.byteCount == 0)
                #expect(try Data(contentsOf: empty.fileURL).isEmpty)
                try empty.removeFile()
            }
            #expect(filesIn(directory).isEmpty)
        }
    }

    @Test func concurrentFetchesShareOneFetcher() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory)) { fetcher in
                let sizes = [1, 1000, 65_536, 65_537, 250_000, 7, 31_337, 500_000]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for size in sizes {
                        group.addTask {
                            let result = try await fetcher.fetch(server.url("/file/\(size)"))
                            #expect(Array(try Data(contentsOf: result.fileURL)) == TestHTTPServer.pattern(size))
                            try result.removeFile()
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(filesIn(directory).isEmpty)
        }
    }

    // MARK: Size limit

    @Test func refusesEarlyFromContentLength() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory, maxBytes: 4_000)) { fetcher in
                let error = await expectFetchError(.inputTooLarge, fetcher, server.url("/file/4001"))
                #expect(error?.isPermanent == true)
                #expect(error?.message.contains("Content-Length 4001") == true)
                // A 10 GB claim: refused from the header, before any of the body is read.
                let huge = await expectFetchError(.inputTooLarge, fetcher, server.url("/huge-length"))
                #expect(huge?.message.contains("Content-Length") == true, "\(huge?.message ?? "")")
            }
            #expect(filesIn(directory).isEmpty)
        }
    }

    @Test func stopsStreamingPastTheLimitAndRemovesTheFile() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory, maxBytes: 100_000)) { fetcher in
                let error = await expectFetchError(.inputTooLarge, fetcher, server.url("/chunked/3000000"))
                #expect(error?.message.contains("exceeds the limit of 100000 bytes") == true)
                #expect(filesIn(directory).isEmpty, "partial file removed")
                // The fetcher is still usable afterwards.
                let result = try await fetcher.fetch(server.url("/file/10"))
                try result.removeFile()
            }
        }
    }

    // MARK: Status codes and connection errors

    @Test func httpErrorsAreDownloadFailedWithPermanence() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory)) { fetcher in
                let notFound = await expectFetchError(.downloadFailed, fetcher, server.url("/status/404?token=SECRET"))
                #expect(notFound?.isPermanent == true)
                #expect(notFound?.message.contains("HTTP 404") == true)
                #expect(notFound?.message.contains(server.url("/status/404")) == true)
                #expect(notFound?.message.contains("SECRET") == false)
                let serverError = await expectFetchError(.downloadFailed, fetcher, server.url("/status/500"))
                #expect(serverError?.isPermanent == false)
                #expect(serverError?.message.contains("HTTP 500") == true)
                let tooMany = await expectFetchError(.downloadFailed, fetcher, server.url("/status/429"))
                #expect(tooMany?.isPermanent == false)
                let forbidden = await expectFetchError(.downloadFailed, fetcher, server.url("/status/403"))
                #expect(forbidden?.isPermanent == true)
            }
            #expect(filesIn(directory).isEmpty)
        }
    }

    @Test func connectionRefusedIsTransient() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let closed = try await TestHTTPServer.start()
        let url = closed.url("/file/10")
        try await closed.stop()
        try await withFetcher(testConfiguration(directory)) { fetcher in
            let error = await expectFetchError(.downloadFailed, fetcher, url)
            #expect(error?.isPermanent == false)
            #expect(error?.message.hasPrefix(url) == true, "\(String(describing: error))")
        }
    }

    @Test func dnsFailureIsDownloadFailed() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let resolver = FakeResolver(failing: ["nowhere.test"])
        try await withFetcher(testConfiguration(directory, allowPrivate: false), resolver: resolver) { fetcher in
            let error = await expectFetchError(.downloadFailed, fetcher, "https://nowhere.test/a.jpg?sig=SECRET")
            #expect(error?.message.contains("could not resolve host nowhere.test") == true)
            #expect(error?.message.contains("SECRET") == false)
        }
    }

    // MARK: Timeouts

    @Test func readTimeout() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory, readTimeout: .milliseconds(400))) { fetcher in
                let error = await expectFetchError(.downloadFailed, fetcher, server.url("/slow-body"))
                #expect(error?.isPermanent == false)
                #expect(error?.message.contains("read timed out") == true, "\(String(describing: error))")
            }
            #expect(filesIn(directory).isEmpty)
        }
    }

    @Test func overallDeadline() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            let configuration = testConfiguration(directory, readTimeout: .seconds(300), totalTimeout: .milliseconds(700))
            try await withFetcher(configuration) { fetcher in
                let clock = ContinuousClock()
                let start = clock.now
                let error = await expectFetchError(.downloadFailed, fetcher, server.url("/drip"))
                // The drip lasts 60 s: ending well before that, it ended at the 700 ms deadline.
                #expect(clock.now - start < .seconds(30))
                #expect(error?.isPermanent == false)
                #expect(error?.message.contains("timed out") == true, "\(String(describing: error))")
            }
            #expect(filesIn(directory).isEmpty, "partial file removed")
        }
    }

    // MARK: Redirects

    @Test func followsRedirectsUpToTheLimit() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory, maxRedirects: 5)) { fetcher in
                let result = try await fetcher.fetch(server.url("/redirect/5"))
                #expect(result.redirectCount == 5)
                #expect(result.finalURL.absoluteString == server.url("/redirect/0"))
                #expect(Array(try Data(contentsOf: result.fileURL)) == TestHTTPServer.pattern(1234))
                try result.removeFile()

                let error = await expectFetchError(.downloadFailed, fetcher, server.url("/redirect/6"))
                #expect(error?.message.contains("too many redirects") == true)
                #expect(error?.isPermanent == true)
            }
            #expect(filesIn(directory).isEmpty)
        }
    }

    @Test func redirectToOtherSchemeOrUserinfoIsForbidden() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withFetcher(testConfiguration(directory)) { fetcher in
                let toFile = "file:///etc/passwd".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                await expectFetchError(.sourceForbidden, fetcher, server.url("/redirect-to?url=\(toFile)"))
                let withUser = server.url("/file/10").replacingOccurrences(of: "http://", with: "http://user:pw@")
                    .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let error = await expectFetchError(.sourceForbidden, fetcher, server.url("/redirect-to?url=\(withUser)"))
                #expect(error?.message.contains("pw") == false)
            }
        }
    }

    // MARK: SSRF

    @Test(arguments: [
        "http://127.0.0.1:9/", "http://localhost:9/", "http://2130706433:9/", "http://0x7f.1:9/",
        "http://127.1:9/", "http://[::1]:9/", "http://[::ffff:127.0.0.1]:9/", "http://0.0.0.0:9/",
    ])
    func refusesLoopbackInAnySpellingByDefault(_ url: String) async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withFetcher(testConfiguration(directory, allowPrivate: false)) { fetcher in
            let error = await expectFetchError(.sourceForbidden, fetcher, url)
            #expect(error?.isPermanent == true)
        }
        #expect(filesIn(directory).isEmpty)
    }

    @Test func defaultConfigurationIsStrict() {
        let configuration = SourceFetcherConfiguration(version: "1.2.3")
        #expect(configuration.allowPrivateSources == false)
        #expect(configuration.addressPolicy == .standard)
        #expect(configuration.maxBytes == 200 * 1024 * 1024)
        #expect(configuration.connectTimeout == .seconds(10))
        #expect(configuration.readTimeout == .seconds(30))
        #expect(configuration.totalTimeout == .seconds(120))
        #expect(configuration.maxRedirects == 5)
        #expect(configuration.userAgent == "pushmedia/1.2.3")
    }

    @Test func redirectFromAllowedHostIntoForbiddenAddressIsRefused() async throws {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await withTestServer { other in
                // Only the first server's exact endpoint is allowed; everything else is the strict default.
                let policy = AddressPolicy(allowedEndpoints: [.init(address: IPAddress("127.0.0.1")!, port: server.port)])
                // Names that resolve to forbidden addresses only in this test; were the check
                // skipped, the real DNS lookup of these names would fail and nothing would be sent.
                let resolver = FakeResolver(answers: [
                    "metadata.test": [IPAddress("169.254.169.254")!],
                    "mixed.test": [IPAddress("93.184.216.34")!, IPAddress("10.1.2.3")!],
                ])
                let configuration = testConfiguration(directory, allowPrivate: false, policy: policy)
                try await withFetcher(configuration, resolver: resolver) { fetcher in
                    // The allowed endpoint itself works under the strict policy.
                    let ok = try await fetcher.fetch(server.url("/file/42"))
                    #expect(ok.byteCount == 42)
                    try ok.removeFile()

                    let metadata = "http://metadata.test/latest/meta-data/".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    let error = await expectFetchError(.sourceForbidden, fetcher, server.url("/redirect-to?url=\(metadata)"))
                    #expect(error?.message.contains("169.254.169.254") == true)
                    #expect(error?.message.contains("cloud metadata") == true)

                    let mixed = "http://mixed.test/a.jpg".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    let mixedError = await expectFetchError(.sourceForbidden, fetcher, server.url("/redirect-to?url=\(mixed)"))
                    #expect(mixedError?.message.contains("10.1.2.3") == true, "every address is checked")

                    let loopback = other.url("/file/10").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    let loopbackError = await expectFetchError(.sourceForbidden, fetcher, server.url("/redirect-to?url=\(loopback)"))
                    #expect(loopbackError?.message.contains("loopback") == true)
                }
                #expect(other.receivedRequests.isEmpty, "the forbidden hop was never contacted")
            }
        }
        #expect(filesIn(directory).isEmpty)
    }

    @Test func connectionToRefusedPeerIsDroppedBeforeTheRequest() async throws {
        // Simulates DNS rebinding: the fetcher's own lookup says "public", but the client's
        // connection lands on loopback. The post-connect check must refuse it.
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            let resolver = FakeResolver(answers: ["127.0.0.1": [IPAddress("93.184.216.34")!]])
            try await withFetcher(testConfiguration(directory, allowPrivate: false), resolver: resolver) { fetcher in
                let error = await expectFetchError(.sourceForbidden, fetcher, server.url("/file/10"))
                #expect(error?.message.contains("connected to 127.0.0.1") == true, "\(String(describing: error))")
                // And again: the fetcher keeps refusing, it does not reuse anything.
                await expectFetchError(.sourceForbidden, fetcher, server.url("/file/11"))
            }
            #expect(server.receivedRequests.isEmpty, "no request was written to the refused peer")
        }
        #expect(filesIn(directory).isEmpty)
    }
}
