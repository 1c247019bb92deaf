extension Profile {
    /// What a notification's media must do to arrive: the service extension downloads every
    /// attachment of a notification before it is shown, in about 30 s, and FCM's Android SDK gives
    /// up on an image after 5 s. All attachments of one notification together must download within
    /// ``seconds`` at ``linkBitsPerSecond``; an image (what FCM shows) within ``imageSeconds`` and
    /// at most 1 MiB.
    ///
    /// The per-attachment budgets derive from this, never above ``Profile/budgets`` or Apple's
    /// limits: see `DeliveryBudget` in PushMedia and docs/usage.md's budget section.
    public struct Delivery: Codable, Sendable, Equatable {
        /// The slow link the target is set for, in bits per second (default 1 Mbit/s).
        public var linkBitsPerSecond: Int
        /// Seconds all attachments of one notification may take to download on that link.
        public var seconds: Double
        /// Seconds one image (the expanded image is FCM's) may take on that link.
        public var imageSeconds: Double

        /// FCM's Android SDK drops an image over 1 MiB.
        public static let fcmImageLimit = 1_048_576

        public init(linkBitsPerSecond: Int = 1_000_000, seconds: Double = 20, imageSeconds: Double = 5) {
            self.linkBitsPerSecond = linkBitsPerSecond
            self.seconds = seconds
            self.imageSeconds = imageSeconds
        }

        /// Bytes all attachments of one notification may take (2.5 MB by default).
        public var notificationBytes: Int { bytes(in: seconds) }

        /// Bytes one image may take: within ``imageSeconds`` and FCM's 1 MiB (625 KB by default).
        public var imageBytes: Int { min(bytes(in: imageSeconds), Self.fcmImageLimit) }

        /// Seconds `bytes` take to download at ``linkBitsPerSecond``.
        public func downloadSeconds(_ bytes: Int) -> Double {
            Double(bytes) * 8 / Double(max(1, linkBitsPerSecond))
        }

        /// Bytes that download in `seconds` at ``linkBitsPerSecond``: never traps, whatever the
        /// values (a value that is not a positive number gives 0, a huge one at most 2^53). For a
        /// profile without ``Profile/problems`` it is the exact product.
        private func bytes(in seconds: Double) -> Int {
            let bytes = (Double(linkBitsPerSecond) * seconds / 8).rounded(.down)
            guard bytes.isFinite, bytes > 0 else { return 0 }
            return bytes < 0x1p53 ? Int(bytes) : 1 << 53
        }
    }
}

extension Profile.Delivery {
    enum CodingKeys: String, CodingKey, CaseIterable { case linkBitsPerSecond, seconds, imageSeconds }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        linkBitsPerSecond = try c.decodeIfPresent(Int.self, forKey: .linkBitsPerSecond) ?? d.linkBitsPerSecond
        seconds = try c.decodeIfPresent(Double.self, forKey: .seconds) ?? d.seconds
        imageSeconds = try c.decodeIfPresent(Double.self, forKey: .imageSeconds) ?? d.imageSeconds
    }
}

/// What one item's notification costs to deliver: the bytes of all its attachments, and how long
/// they take to download on the profile's link.
public struct NotificationDelivery: Codable, Sendable, Equatable {
    /// Bytes of every attachment of the item together.
    public var bytes: Int
    /// The profile's bytes per notification (``Profile/Delivery/notificationBytes``).
    public var budget: Int
    /// Seconds ``bytes`` take at ``linkBitsPerSecond``.
    public var seconds: Double
    public var linkBitsPerSecond: Int

    public init(bytes: Int, budget: Int, seconds: Double, linkBitsPerSecond: Int) {
        self.bytes = bytes
        self.budget = budget
        self.seconds = seconds
        self.linkBitsPerSecond = linkBitsPerSecond
    }

    /// The delivery of `attachments` under `target` on iOS (the service extension downloads
    /// every iOS attachment; the Android image is fetched by Android alone); nil when there are none.
    public init?(attachments: [Attachment], target: Profile.Delivery) {
        let attachments = attachments.filter(\.role.isIOS)
        guard !attachments.isEmpty else { return nil }
        let bytes = attachments.reduce(0) { $0 + $1.bytes }
        self.init(
            bytes: bytes, budget: target.notificationBytes, seconds: (target.downloadSeconds(bytes) * 100).rounded() / 100,
            linkBitsPerSecond: target.linkBitsPerSecond)
    }
}
