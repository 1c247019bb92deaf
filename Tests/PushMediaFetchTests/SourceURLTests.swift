import Foundation
import PushMediaFetch
import Testing

@Suite("SourceURL, RedirectTracker and SuggestedFileName")
struct SourceURLTests {
    @Test func acceptsHTTPAndHTTPS() throws {
        let http = try SourceURL("http://cdn.example.com/a.jpg")
        #expect(http.scheme == "http")
        #expect(http.host == "cdn.example.com")
        #expect(http.port == 80)
        let https = try SourceURL("HTTPS://cdn.example.com:8443/a.jpg")
        #expect(https.scheme == "https")
        #expect(https.port == 8443)
        #expect(try SourceURL("https://cdn.example.com/").port == 443)
        #expect(try SourceURL("http://[::1]:8080/").host == "::1")
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://example.com/a", "gopher://example.com/", "data:text/plain,hi", "javascript:alert(1)"])
    func refusesOtherSchemes(_ text: String) {
        #expect(throws: SourceFetchError.self) { try SourceURL(text) }
        do { _ = try SourceURL(text) } catch { #expect(error.code == "source_forbidden") }
    }

    @Test(arguments: ["http://user:pass@example.com/a", "http://user@example.com/", "https://:secret@example.com/"])
    func refusesUserinfo(_ text: String) {
        do {
            _ = try SourceURL(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == "source_forbidden")
            #expect(!error.message.contains("user:pass"))
            #expect(!error.message.contains("user@"))
            #expect(!error.message.contains("secret"))
        }
    }

    @Test func malformedIsDownloadFailed() {
        do {
            _ = try SourceURL("http:///nohost")
            Issue.record("accepted a URL without host")
        } catch {
            #expect(error.code == "download_failed")
            #expect(error.isPermanent)
        }
    }

    @Test func redactionStripsQueryFragmentAndUserinfo() throws {
        #expect(SourceURL.redact("https://u:p@cdn.example.com/a/b.jpg?token=SECRET#frag") == "https://cdn.example.com/a/b.jpg")
        #expect(SourceURL.redact(URL(string: "https://u:p@cdn.example.com/x.png?sig=abc")!) == "https://cdn.example.com/x.png")
        #expect(try SourceURL("https://cdn.example.com/x.png?sig=abc").description == "https://cdn.example.com/x.png")
    }

    @Test func trackerFollowsRelativeAndAbsoluteLocations() throws {
        var tracker = RedirectTracker(initial: try SourceURL("http://a.example/one/two?x=1"), maxRedirects: 3)
        #expect(try tracker.handle(status: 200, location: "/ignored") == .done)
        #expect(try tracker.handle(status: 302, location: "three") == .follow(try SourceURL("http://a.example/one/three")))
        #expect(try tracker.handle(status: 301, location: "/root") == .follow(try SourceURL("http://a.example/root")))
        #expect(try tracker.handle(status: 308, location: "https://b.example/x") == .follow(try SourceURL("https://b.example/x")))
        #expect(tracker.redirectCount == 3)
        #expect(tracker.current.host == "b.example")
        do {
            _ = try tracker.handle(status: 307, location: "/again")
            Issue.record("limit not enforced")
        } catch {
            #expect(error.code == "download_failed")
            #expect(error.message.contains("too many redirects"))
        }
    }

    @Test func trackerRefusesBadTargets() throws {
        var tracker = RedirectTracker(initial: try SourceURL("http://a.example/"), maxRedirects: 5)
        for (location, code) in [
            ("file:///etc/passwd", "source_forbidden"),
            ("http://user:pw@b.example/", "source_forbidden"),
            ("gopher://b.example/", "source_forbidden"),
        ] {
            do {
                _ = try tracker.handle(status: 302, location: location)
                Issue.record("followed \(location)")
            } catch {
                #expect(error.code == code, "\(location)")
            }
        }
        do {
            _ = try tracker.handle(status: 303, location: nil)
            Issue.record("followed a redirect without Location")
        } catch {
            #expect(error.code == "download_failed")
        }
        #expect(tracker.redirectCount == 0)
        #expect(try tracker.handle(status: 304, location: "/x") == .done, "304 is not followed")
    }

    @Test func zeroRedirectsAllowed() throws {
        var tracker = RedirectTracker(initial: try SourceURL("http://a.example/"), maxRedirects: 0)
        #expect(throws: SourceFetchError.self) { try tracker.handle(status: 302, location: "/b") }
    }

    @Test func suggestedFileNames() {
        #expect(SuggestedFileName.make(for: URL(string: "https://x.example/media/photo.jpg?sig=1")!) == "photo.jpg")
        #expect(SuggestedFileName.make(for: URL(string: "https://x.example/a/my%20clip.mp4")!) == "my clip.mp4")
        #expect(SuggestedFileName.make(for: URL(string: "https://x.example/")!) == "download")
        #expect(SuggestedFileName.make(for: URL(string: "https://x.example/")!, contentType: "image/png; charset=x") == "download.png")
        #expect(
            SuggestedFileName.make(for: URL(string: "https://x.example/..%2F..%2Fetc%2Fpasswd")!) == "passwd"
                || !SuggestedFileName.make(for: URL(string: "https://x.example/..%2F..%2Fetc%2Fpasswd")!).contains("/"))
        #expect(SuggestedFileName.make(for: URL(string: "https://x.example/.hidden")!) == "hidden")
        #expect(SuggestedFileName.fileExtension(for: "video/quicktime") == "mov")
        #expect(SuggestedFileName.fileExtension(for: nil) == nil)
    }

    @Test func errorCodesAndPermanence() {
        #expect(Set(SourceFetchError.Kind.allCases.map(\.rawValue)) == ["download_failed", "source_forbidden", "input_too_large"])
        #expect(SourceFetchError.forbidden("x").isPermanent)
        #expect(SourceFetchError.tooLarge("x").isPermanent)
        #expect(!SourceFetchError.downloadFailed("x", permanent: false).isPermanent)
        #expect(SourceFetchError.forbidden("m").description == "source_forbidden: m")
    }
}
