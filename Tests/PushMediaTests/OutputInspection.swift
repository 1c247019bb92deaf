import Foundation
import PushMediaModel

@testable import PushMedia

/// Reads outputs back with libvips, so tests check pixels and not what the code says it wrote.
enum OutputInspection {
    static func image(_ attachment: Attachment, in folder: URL) throws -> Vips.Image {
        try Vips.start()
        return try Vips.Image.decode(try Data(contentsOf: folder.appendingPathComponent(attachment.file)))
    }

    static func sha256(_ data: Data) -> String {
        ContentHash.sha256(data)
    }

    /// The share of sampled pixels in `rect` (unit coordinates) close to `colour`.
    static func share(
        of colour: [Double], in image: Vips.Image, unitRect: UnitRect = UnitRect(x: 0, y: 0, width: 1, height: 1),
        tolerance: Double = 40, grid: Int = 24
    ) throws -> Double {
        var hits = 0
        for i in 0..<grid {
            for j in 0..<grid {
                let x = Int((unitRect.x + unitRect.width * (Double(i) + 0.5) / Double(grid)) * Double(image.width))
                let y = Int((unitRect.y + unitRect.height * (Double(j) + 0.5) / Double(grid)) * Double(image.height))
                let p = try image.pixel(x: min(x, image.width - 1), y: min(y, image.height - 1))
                if zip(p.prefix(3), colour).allSatisfy({ abs($0 - $1) <= tolerance }) { hits += 1 }
            }
        }
        return Double(hits) / Double(grid * grid)
    }

    /// The subject disc the fixture script draws (#e0a070).
    static let subjectColour: [Double] = [224, 160, 112]
}
