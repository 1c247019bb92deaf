/// How the face search runs, decided here and handed to CFaceDetect with every search
/// (``FaceDetector``): the proxy the whole-image search reads, the lowest score a face is
/// reported with, how many faces are kept, and the cells the search is planned from
/// (``FaceSearchPlan``). Pure.
enum FaceSearchSettings {
    /// Faces reported at most; more are dropped (the lowest scores).
    static let maxFaces = 32

    /// Pixels of the grey proxy the whole-image search reads (775×581 for a 4:3 image, 1162×387
    /// for a 3:1 banner). dlib finds faces from about 80 px, so from 1/7 of a 4:3 image's short
    /// side and 1/5 of a 3:1 banner's; the search's CPU grows with the area. Smaller images are
    /// searched as they are (upscaling brought back false faces; docs/benchmarks/faces.md).
    static let searchArea = 450_000

    /// dlib reports windows scoring above 0. On the face set (Benchmarks/faces.py) every true face
    /// scores at least 0.35 and the few false ones (a sleeve, a flag patch) stay under 0.1, where
    /// rounding in the blur decides whether they show: a face must score above this.
    static let minimumScore = 0.1

    /// The lowest score of the CNN's faces (``FaceNetPlan``): dlib's threshold for the model, 0,
    /// raised a little. On the group banners and the no-face controls its false faces (none seen)
    /// would need to pass it; its true faces scored 0.4 and more (docs/benchmarks/faces.md).
    static let netMinimumScore = 0.2

    /// Pixels of the image across and down one cell of the map the search is planned from
    /// (``FaceDetector/cells(of:)``).
    static let cell = 8

    /// How many proxy pixels the whole-image search reads per pixel of an image of `size` (1 for
    /// an image of ``searchArea`` pixels or fewer).
    static func proxyScale(of size: PixelSize) -> Double {
        min(1, (Double(searchArea) / (Double(size.width) * Double(size.height))).squareRoot())
    }

    /// The proxy the whole-image search reads for an image of `size`: ``searchArea`` pixels of
    /// the same shape (each side rounded, at least 1), or the image's own size when it is no
    /// larger.
    static func proxySize(of size: PixelSize) -> PixelSize {
        let scale = (Double(searchArea) / (Double(size.width) * Double(size.height))).squareRoot()
        guard scale < 1 else { return size }
        return PixelSize(
            width: max(1, Int((Double(size.width) * scale).rounded())),
            height: max(1, Int((Double(size.height) * scale).rounded())))
    }
}
