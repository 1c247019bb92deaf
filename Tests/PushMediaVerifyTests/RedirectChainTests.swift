import Foundation
import PushMediaVerify
import Testing

@Suite("RedirectChain: the redirects a fetch follows")
struct RedirectChainTests {
    static let allowed: Set<String> = ["cdn.example.com:443", "origin.example.com:8443"]

    func chain(_ limit: Int = 16) -> RedirectChain {
        RedirectChain(start: URL(string: "https://cdn.example.com/c/a-thumb.jpg")!, limit: limit, allowedAuthorities: Self.allowed)
    }

    @Test func followsHTTPSToTheManifestsHosts() {
        var chain = chain()
        #expect(chain.next(status: 200, location: nil) == .final)
        #expect(chain.next(status: 302, location: "/moved/a-thumb.jpg") == .follow(URL(string: "https://cdn.example.com/moved/a-thumb.jpg")!))
        #expect(
            chain.next(status: 301, location: "https://origin.example.com:8443/a-thumb.jpg")
                == .follow(URL(string: "https://origin.example.com:8443/a-thumb.jpg")!))
        #expect(chain.redirects == 2 && chain.current.absoluteString == "https://origin.example.com:8443/a-thumb.jpg")
        // 300 and 304 are not redirects a download follows: they are final answers.
        #expect(chain.next(status: 304, location: "/x") == .final)
    }

    @Test func stops() {
        var toHTTP = chain()
        #expect(toHTTP.next(status: 301, location: "http://cdn.example.com/c/a-thumb.jpg") == .stop(.toHTTP("http://cdn.example.com/c/a-thumb.jpg")))
        var loop = chain()
        #expect(loop.next(status: 302, location: "/b") == .follow(URL(string: "https://cdn.example.com/b")!))
        #expect(
            loop.next(status: 302, location: "https://CDN.example.com:443/c/a-thumb.jpg#x")
                == .stop(.loop("https://CDN.example.com:443/c/a-thumb.jpg#x")))
        var elsewhere = chain()
        #expect(elsewhere.next(status: 307, location: "https://169.254.169.254/latest/meta-data/") == .stop(.offHost("169.254.169.254:443")))
        var otherPort = chain()
        #expect(otherPort.next(status: 307, location: "https://cdn.example.com:22/") == .stop(.offHost("cdn.example.com:22")))
        var broken = chain()
        #expect(broken.next(status: 302, location: nil) == .stop(.broken(status: 302, location: nil)))
        #expect(broken.next(status: 302, location: "ftp://cdn.example.com/a") == .stop(.broken(status: 302, location: "ftp://cdn.example.com/a")))
        var many = chain(3)
        for step in 1...3 { #expect(many.next(status: 302, location: "/\(step)") == .follow(URL(string: "https://cdn.example.com/\(step)")!)) }
        #expect(many.next(status: 302, location: "/4") == .stop(.tooMany(limit: 3)))
    }

    @Test("whatever the server answers, the chain ends within its limit, never visits a URL twice, never leaves https or the allowed hosts")
    func randomChainsEnd() {
        var rng = Xorshift(seed: 42)
        let locations = [
            "/a", "/b", "/c", "/a?x=1", "https://cdn.example.com/d", "https://origin.example.com:8443/a", "http://cdn.example.com/a",
            "https://evil.example.net/a", "", "ftp://x/y", "//origin.example.com:8443/e", "../f", "https://cdn.example.com:443/a",
        ]
        for _ in 0..<3000 {
            let limit = Int.random(in: 0...20, using: &rng)
            var chain = chain(limit)
            var steps = 0
            loop: while true {
                steps += 1
                #expect(steps <= limit + 1)
                let status = [200, 301, 302, 303, 307, 308, 404, 304].randomElement(using: &rng)!
                switch chain.next(status: status, location: locations.randomElement(using: &rng)) {
                case .final, .stop: break loop
                case .follow(let url):
                    #expect(url.scheme == "https")
                    #expect(RedirectChain.authority(of: url).map(Self.allowed.contains) == true)
                }
            }
            #expect(chain.redirects <= limit)
            let keys = chain.visited.map { "\(RedirectChain.authority(of: $0)!)\($0.path)?\($0.query ?? "")" }
            #expect(Set(keys).count == keys.count, "\(chain.visited)")
        }
    }

    @Test func authorities() {
        #expect(RedirectChain.authority(of: URL(string: "https://CDN.Example.com/x")!) == "cdn.example.com:443")
        #expect(RedirectChain.authority(of: URL(string: "http://cdn.example.com/x")!) == "cdn.example.com:80")
        #expect(RedirectChain.authority(of: URL(string: "https://[::1]:8443/x")!) == "[::1]:8443")
        #expect(RedirectChain.authority(of: URL(string: "ftp://cdn.example.com/x")!) == nil)
    }
}
