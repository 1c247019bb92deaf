import PushMediaModel

/// Pure: the byte budget of each attachment of one notification, so that all of them download
/// within the profile's delivery target (``Profile/Delivery``).
///
/// Attachments are budgeted in the order they are made, each from what the ones before it
/// actually took: the thumbnail, the expanded image, then the movie or audio file, which takes
/// what the images leave. A budget is never above the profile's per-type budget
/// (``Profile/Budgets``), Apple's limit for the type, or, for an image, the time one image may take
/// (FCM shows the expanded image on Android and gives up after 5 s; it drops images over 1 MiB).
/// The images of a movie or audio item (poster frame, cover art) take at most a quarter of the
/// notification each, so that the media file keeps at least half.
struct DeliveryBudget: Equatable {
    /// Bytes all attachments of the notification may take.
    var notification: Int
    /// Bytes one image may take.
    var image: Int
    /// The profile's per-type budgets.
    var perType: Profile.Budgets
    /// True when a movie or audio file follows the images.
    var carriesMedia: Bool
    /// Bytes the Android image may take: its profile budget, within the time one image may take
    /// and Firebase's 1 MiB. Android downloads it alone: it is not part of ``notification``.
    var android: Int

    init(profile: Profile, carriesMedia: Bool) {
        notification = profile.delivery.notificationBytes
        image = profile.delivery.imageBytes
        android = max(0, min(profile.android.budget, Profile.Android.hardLimit, profile.delivery.imageBytes))
        perType = profile.budgets
        self.carriesMedia = carriesMedia
    }

    /// The budget of an image attachment when the attachments made before it took `spent` bytes.
    func image(_ role: Attachment.Role, animated: Bool, spent: Int) -> Int {
        let typeBudget = animated ? perType.animated : (role == .thumbnail ? perType.thumbnail : perType.expanded)
        let left = notification - spent
        // What the attachments still to come need at least: a thumbnail leaves two thirds for the
        // expanded image; a poster or cover art leaves the media file at least half.
        let share = carriesMedia ? notification / 4 : (role == .thumbnail ? notification / 3 : left)
        return max(0, min(typeBudget, image, AttachmentType.maxBytes(for: .image), share, left))
    }

    /// The budget of the movie or audio file when the images before it took `spent` bytes.
    func media(_ category: AttachmentType.Category, spent: Int) -> Int {
        let typeBudget = category == .movie ? perType.movie : perType.audio
        return max(0, min(typeBudget, AttachmentType.maxBytes(for: category), notification - spent))
    }

    /// Why a budget is what it is, for an `over_budget` message: the notification's bytes and
    /// what the attachments before took.
    func explanation(spent: Int) -> String {
        "the notification may take \(notification) bytes in all (profile delivery target)"
            + (spent > 0 ? ", \(spent) of them taken by the attachments before" : "")
    }
}
