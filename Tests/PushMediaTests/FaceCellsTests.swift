import CFaceDetect
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// `pm_face_cells`, the one pass over the pixels the face search is planned from: its means and
/// deviations against the same sums done here, at odd sizes and band counts.
@Suite("Face search cells")
struct FaceCellsTests {
    /// The statistics of one cell as the header defines them: every second pixel of every fourth
    /// row of the cell, from its first.
    static func expected(
        _ pixels: [UInt8], width: Int, height: Int, bands: Int, band: Int, cell: Int, column: Int, row: Int
    ) -> pm_face_cell {
        var (r, g, b, c, v, q, n) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for y in stride(from: row * cell, to: min(height, (row + 1) * cell), by: 4) {
            for x in stride(from: column * cell, to: min(width, (column + 1) * cell), by: 2) {
                let at = (y * width + x) * bands
                let value = Double(pixels[at + band])
                let (pr, pg, pb) = bands >= 3 ? (Double(pixels[at]), Double(pixels[at + 1]), Double(pixels[at + 2])) : (value, value, value)
                r += pr
                g += pg
                b += pb
                c += max(pr, pg, pb) - min(pr, pg, pb)
                v += value
                q += value * value
                n += 1
            }
        }
        let mean = v / n
        return pm_face_cell(
            red: Float(r / n), green: Float(g / n), blue: Float(b / n), chroma: Float(c / n),
            deviation: Float(max(0, q / n - mean * mean).squareRoot()))
    }

    @Test(
        "means, chroma and deviation of every cell, at 1×1, 2×2, odd sizes and a cell's edge, for RGB, RGBA and grey, any band",
        arguments: [(1, 1), (2, 2), (3, 2), (9, 7), (8, 8), (17, 16), (301, 17)])
    func statistics(width: Int, height: Int) throws {
        var rng = SeededRandom(seed: UInt64(width * 1000 + height))
        for (bands, band) in [(3, 1), (4, 1), (4, 3), (1, 0), (2, 1)] {
            for cell in [1, 3, 8] {
                let pixels = (0..<(width * height * bands)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let columns = (width + cell - 1) / cell
                let rows = (height + cell - 1) / cell
                var cells = [pm_face_cell](repeating: pm_face_cell(), count: columns * rows)
                var message = [CChar](repeating: 0, count: 128)
                let status = pixels.withUnsafeBufferPointer { buffer in
                    var image = pm_face_image(
                        pixels: buffer.baseAddress, width: Int32(width), height: Int32(height),
                        stride: Int32(width * bands), bands: Int32(bands), band: Int32(band))
                    return pm_face_cells(&image, Int32(cell), &cells, Int32(columns), Int32(rows), &message, message.count)
                }
                try #require(status == 0, "\(String(cBuffer: message))")
                for row in 0..<rows {
                    for column in 0..<columns {
                        let got = cells[row * columns + column]
                        let want = Self.expected(pixels, width: width, height: height, bands: bands, band: band, cell: cell, column: column, row: row)
                        let pairs = [
                            (got.red, want.red), (got.green, want.green), (got.blue, want.blue), (got.chroma, want.chroma),
                            (got.deviation, want.deviation),
                        ]
                        #expect(
                            pairs.allSatisfy { abs($0.0 - $0.1) < 1e-3 },
                            "\(width)×\(height) bands \(bands) cell \(cell) at \(column),\(row): \(got) ≠ \(want)")
                    }
                }
            }
        }
    }

    @Test("reads no byte past the image: the last row ends at a page no process may read (1×1 to odd sizes, RGB and grey)")
    func staysInside() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for (width, height, bands) in [(1, 1, 3), (1, 1, 1), (3, 2, 3), (9, 7, 4), (301, 17, 3), (17, 301, 1)] {
            let bytes = width * height * bands
            let pages = (bytes + page - 1) / page
            let mapped = try #require(
                mmap(nil, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                    .flatMap { $0 == UnsafeMutableRawPointer(bitPattern: -1) ? nil : $0 })
            defer { munmap(mapped, (pages + 1) * page) }
            #expect(mprotect(mapped + pages * page, page, PROT_NONE) == 0)
            // The image's last byte is the last one before the guard page.
            let start = (mapped + (pages * page - bytes)).assumingMemoryBound(to: UInt8.self)
            for at in 0..<bytes { start[at] = UInt8(truncatingIfNeeded: at &* 31) }
            let columns = (width + 7) / 8
            let rows = (height + 7) / 8
            var cells = [pm_face_cell](repeating: pm_face_cell(), count: columns * rows)
            var message = [CChar](repeating: 0, count: 128)
            var image = pm_face_image(
                pixels: start, width: Int32(width), height: Int32(height), stride: Int32(width * bands), bands: Int32(bands),
                band: Int32(min(1, bands - 1)))
            #expect(pm_face_cells(&image, 8, &cells, Int32(columns), Int32(rows), &message, message.count) == 0)
        }
    }

    @Test("a grid that does not fit the image, a cell over 64 px or no pixels: refused with a message")
    func refused() {
        let pixels = [UInt8](repeating: 9, count: 10 * 10 * 3)
        var cells = [pm_face_cell](repeating: pm_face_cell(), count: 16)
        var message = [CChar](repeating: 0, count: 128)
        for (cell, columns, rows) in [(8, 1, 2), (8, 2, 1), (3, 4, 3), (65, 1, 1), (0, 1, 1)] {
            let status = pixels.withUnsafeBufferPointer { buffer in
                var image = pm_face_image(pixels: buffer.baseAddress, width: 10, height: 10, stride: 30, bands: 3, band: 1)
                return pm_face_cells(&image, Int32(cell), &cells, Int32(columns), Int32(rows), &message, message.count)
            }
            #expect(status == -1)
            #expect(String(cBuffer: message) == "invalid arguments")
        }
        var empty = pm_face_image(pixels: nil, width: 10, height: 10, stride: 30, bands: 3, band: 1)
        #expect(pm_face_cells(&empty, 8, &cells, 2, 2, &message, message.count) == -1)
    }

    @Test("a banner's map: its graphics are not searched, its photo is; a grey copy has the same texture and no skin")
    func bannerMap() throws {
        let (folder, banners) = try FaceTests.banners()
        let banner = try #require(banners.first { $0.face != nil && $0.width > 2 * $0.height })
        let image = try Vips.Image.decode(try Data(contentsOf: folder.appendingPathComponent(banner.file)))
        let map = try FaceDetector.cells(of: image)
        #expect(map.columns == (image.width + 7) / 8 && map.rows == (image.height + 7) / 8)
        let face = try #require(banner.face)
        // The face's cells are searched, most of the banner's are not.
        let centre = Int(face.centre.y * Double(image.height)) / 8 * map.columns + Int(face.centre.x * Double(image.width)) / 8
        #expect(map.searchable[centre])
        #expect(Double(map.searchable.filter { $0 }.count) < 0.6 * Double(map.searchable.count))
        let grey = try FaceDetector.cells(of: try image.colourspace(VIPS_INTERPRETATION_B_W))
        #expect(!grey.skin.contains(true))
        #expect(grey.searchable[centre])
        #expect(map.skin.contains(true))
    }
}
