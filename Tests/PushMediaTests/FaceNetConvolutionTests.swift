import CPushMediaTestSupport
import Foundation
import Testing

/// The face net's convolution (`CFaceNet`'s `convolve`, a few output positions at a time) against
/// dlib's own CPU convolution, which unrolls the whole input at once: the same floats, bit for bit,
/// so the net finds exactly what it found with dlib's layer.
@Suite("Face net convolution")
struct FaceNetConvolutionTests {
    /// One convolution: input channels × rows × columns, filters × filter rows × columns, stride,
    /// and dlib's default padding for that stride (half the filter at stride 1, none otherwise).
    struct Shape: Sendable, CustomTestStringConvertible {
        var channels, rows, columns, filters, filterRows, filterColumns, stride: Int
        var biased = true
        var padding: (Int, Int) { stride == 1 ? (filterRows / 2, filterColumns / 2) : (0, 0) }
        var testDescription: String {
            "\(channels)×\(rows)×\(columns) by \(filters)×\(filterRows)×\(filterColumns) /\(stride)\(biased ? "" : " no bias")"
        }
    }

    static let shapes: [Shape] = [
        // The net's own layers, on small and odd inputs.
        Shape(channels: 3, rows: 37, columns: 51, filters: 16, filterRows: 5, filterColumns: 5, stride: 2),
        Shape(channels: 16, rows: 17, columns: 24, filters: 32, filterRows: 5, filterColumns: 5, stride: 2),
        Shape(channels: 32, rows: 13, columns: 9, filters: 45, filterRows: 5, filterColumns: 5, stride: 1),
        Shape(channels: 45, rows: 11, columns: 14, filters: 45, filterRows: 5, filterColumns: 5, stride: 1),
        Shape(channels: 45, rows: 12, columns: 19, filters: 1, filterRows: 9, filterColumns: 9, stride: 1),
        // Inputs smaller than the filter (all padding), one position, widths around the block.
        Shape(channels: 45, rows: 1, columns: 1, filters: 1, filterRows: 9, filterColumns: 9, stride: 1),
        Shape(channels: 3, rows: 2, columns: 2, filters: 16, filterRows: 5, filterColumns: 5, stride: 1),
        Shape(channels: 3, rows: 5, columns: 5, filters: 16, filterRows: 5, filterColumns: 5, stride: 2),
        Shape(channels: 3, rows: 6, columns: 6, filters: 3, filterRows: 5, filterColumns: 5, stride: 2),
        Shape(channels: 1, rows: 1, columns: 700, filters: 5, filterRows: 1, filterColumns: 3, stride: 1),
        Shape(channels: 2, rows: 3, columns: 3, filters: 7, filterRows: 3, filterColumns: 3, stride: 1, biased: false),
    ]

    @Test("the same floats as dlib's convolution", arguments: shapes)
    func sameAsDlib(shape: Shape) throws {
        for seed: UInt32 in [1, 2] {
            var outputs = 0
            var error = [CChar](repeating: 0, count: 256)
            let differences = pm_face_net_convolution_differences(
                Int32(shape.channels), Int32(shape.rows), Int32(shape.columns), Int32(shape.filters),
                Int32(shape.filterRows), Int32(shape.filterColumns), Int32(shape.stride), Int32(shape.stride),
                Int32(shape.padding.0), Int32(shape.padding.1), shape.biased ? 1 : 0, seed, &outputs, &error, error.count)
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #expect(differences == 0, "seed \(seed): \(differences) of \(outputs) differ \(message)")
            let side = { (size: Int, filter: Int, pad: Int) in 1 + (size + 2 * pad - filter) / shape.stride }
            let expected =
                shape.filters * side(shape.rows, shape.filterRows, shape.padding.0)
                * side(shape.columns, shape.filterColumns, shape.padding.1)
            #expect(outputs == expected)
        }
    }
}
