import Foundation

/// What is worth fixing about a published URL even though phones get the file: tokens and query
/// strings, caching, redirects, compression.
enum URLWarnings {
    /// Query parameters that carry a signature or a token (S3 and Google Cloud Storage presigned
    /// URLs, CloudFront signed URLs, Azure SAS, Akamai tokens, plain tokens).
    static let tokenParameters: Set<String> = [
        "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential", "signature", "sig",
        "policy", "key-pair-id", "expires", "se", "sv", "hdnts", "hdnea", "token", "access_token", "auth", "jwt",
    ]

    /// The query string of `url`, if it has one.
    static func query(of url: String) -> [String] {
        guard let components = URLComponents(string: url), let items = components.queryItems, !items.isEmpty else { return [] }
        let tokens = items.filter { tokenParameters.contains($0.name.lowercased()) }
        guard let first = tokens.first else {
            let names = items.map(\.name).joined(separator: ", ")
            return [
                "the URL has a query string (\(names)): every payload carries it, and a CDN that ignores query strings serves the same object whatever it says"
            ]
        }
        var warning =
            "the URL carries a token (\(first.name)): it must stay valid until the last phone has downloaded the file, and a phone that gets the notification late gets no image"
        if let expiry = expiry(of: items) {
            warning += "; it expires at \(Self.timestamp(expiry))"
        }
        return [warning]
    }

    /// When a presigned (X-Amz-Date + X-Amz-Expires) or CloudFront (Expires=UNIX) URL expires.
    static func expiry(of items: [URLQueryItem]) -> Date? {
        func value(_ name: String) -> String? { items.first { $0.name.lowercased() == name }?.value }
        if let signed = value("x-amz-date"), let seconds = value("x-amz-expires").flatMap(Double.init) {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            return formatter.date(from: signed).map { $0.addingTimeInterval(seconds) }
        }
        if let unix = value("expires").flatMap(Double.init), unix > 1_000_000_000 {
            return Date(timeIntervalSince1970: unix)
        }
        return nil
    }

    /// Warnings about a response phones can use.
    static func response(_ o: Observation) -> [String] {
        var warnings: [String] = []
        if o.redirects > 0, let final = o.requested.last {
            let plural = o.redirects == 1 ? "" : "s"
            warnings.append(
                "\(o.redirects) redirect\(plural) to \(final): each costs the phone a round trip before the download starts; publish the final URL")
        }
        if let cache = cacheWarning(o.cacheControl) { warnings.append(cache) }
        if let encoding = o.contentEncoding, encoding.lowercased() != "identity" {
            warnings.append(
                "the file is sent compressed (Content-Encoding: \(encoding)): phones decode it, but images and movies do not get smaller, and Content-Length then counts the compressed bytes"
            )
        }
        return warnings
    }

    /// The least a campaign's file should be cached for: sends span minutes to hours, and a
    /// name of PushMedia's always means the same bytes.
    static let shortestMaxAge = 86_400

    static func cacheWarning(_ header: String?) -> String? {
        let advice = "PushMedia's file names always mean the same bytes, so \"public, max-age=31536000, immutable\" is safe"
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else {
            return
                "no Cache-Control: the CDN keeps the file for its default time only, and every phone that misses its cache reaches the origin; \(advice)"
        }
        var directives: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = pair.first, !name.isEmpty else { continue }
            directives[name] = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : ""
        }
        if let refused = ["no-store", "no-cache", "private"].first(where: { directives[$0] != nil }) {
            return
                "Cache-Control \(header) (\(refused)): the CDN does not serve it from its cache, so every phone's download reaches the origin; \(advice)"
        }
        let maxAge = (directives["s-maxage"] ?? directives["max-age"]).flatMap(Int.init)
        if let maxAge, maxAge < shortestMaxAge {
            return "Cache-Control \(header): cached for \(maxAge) s, less than a day, while a campaign's sends can span hours; \(advice)"
        }
        return nil
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
