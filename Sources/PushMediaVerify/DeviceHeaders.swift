import PushMediaModel

/// The request headers of the phones' downloaders, as near as verify can send them.
///
/// - iOS: a service extension downloads with `NSURLSession` (Firebase's
///   `FIRMessagingExtensionHelper` and Apple's samples use the default session), which sends
///   `User-Agent: <extension>/<build> CFNetwork/<version> Darwin/<version>`, `Accept: */*`,
///   `Accept-Language` and `Accept-Encoding: gzip, deflate, br`.
/// - Android: FCM's `ImageDownload` calls `URL.openConnection()`, Android's `HttpURLConnection`
///   (OkHttp inside), which sends `User-Agent: Dalvik/2.1.0 (Linux; U; Android …)` and
///   `Accept-Encoding: gzip`, and no `Accept`.
///
/// verify names itself inside each User-Agent, and offers only the encodings it decodes (not
/// `br`: no CDN compresses images or movies with it, and a compressed body is reported anyway).
public enum DeviceHeaders {
    public static func iOS(version: String = PushMediaVersion.string) -> [(name: String, value: String)] {
        [
            ("User-Agent", "NotificationService/1 CFNetwork/1568.300.101 Darwin/24.3.0 pushmedia-verify/\(version)"),
            ("Accept", "*/*"),
            ("Accept-Language", "en-US,en;q=0.9"),
            ("Accept-Encoding", "gzip, deflate"),
        ]
    }

    public static func android(version: String = PushMediaVersion.string) -> [(name: String, value: String)] {
        [
            ("User-Agent", "Dalvik/2.1.0 (Linux; U; Android 14; pushmedia-verify/\(version))"),
            ("Accept-Encoding", "gzip"),
        ]
    }

    /// The content codings `headers` offer (`Accept-Encoding`, lowercase, without weights);
    /// `identity` is always acceptable.
    public static func offeredEncodings(_ headers: [(name: String, value: String)]) -> Set<String> {
        var offered: Set<String> = ["identity"]
        for header in headers where header.name.lowercased() == "accept-encoding" {
            for part in header.value.split(separator: ",") {
                let coding = part.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                if !coding.isEmpty { offered.insert(coding) }
            }
        }
        return offered
    }

    /// The headers of whoever downloads a URL with `rules`: iOS's whenever an iOS attachment is
    /// among them (one fetch serves both when FCM shows the same image), else Android's.
    public static func of(_ rules: [DownloadRule]) -> [(name: String, value: String)] {
        rules.contains { if case .iOS = $0 { true } else { false } } ? iOS() : android()
    }
}
