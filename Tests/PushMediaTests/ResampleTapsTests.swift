import CResample
import PushMediaTesting
import Testing

/// The tap tables shared by the face search's proxy and the still decode's horizontal reduce:
/// pure arithmetic, checked over many sizes without any image.
@Suite("Resample taps")
struct ResampleTapsTests {
    @Test(
        "every output pixel's taps lie inside the image, within the kernel's support, weights summing to 1",
        arguments: [
            PM_RESAMPLE_TRIANGLE, PM_RESAMPLE_LANCZOS3,
        ])
    func tapsAreSound(_ kernel: pm_resample_kernel) {
        var random = SeededRandom(seed: 3)
        for _ in 0..<400 {
            let input = Int32.random(in: 1...5000, using: &random)
            let output = Int32.random(in: max(1, input / 40)...input, using: &random)
            let most = pm_resample_most_taps(kernel, input, output)
            var weights = [Double](repeating: .nan, count: Int(most))
            let reach = Double(input) / Double(output)
            let support = Double(kernel.rawValue) * reach
            var previous: Int32 = 0
            for o in [0, output / 2, output - 1] + (0..<min(output, 20)).map({ $0 }) {
                var first: Int32 = -1
                let count = pm_resample_taps(kernel, input, output, o, &first, &weights)
                #expect(count >= 1 && count <= most)
                #expect(first >= 0 && first + count <= input, "\(input)→\(output) pixel \(o)")
                let centre = (Double(o) + 0.5) * reach - 0.5
                for k in 0..<Int(count) {
                    #expect(abs(Double(first) + Double(k) - centre) < support || count == 1, "\(input)→\(output) pixel \(o) tap \(k)")
                }
                #expect(abs(weights.prefix(Int(count)).reduce(0, +) - 1) < 1e-9)
                if o > 0 && o < 20 { #expect(first >= previous) }
                previous = first
            }
        }
    }

    @Test("the known case: 4 pixels to 2 with the triangle, output 0 reads inputs 0 to 2 weighted 3/7, 3/7, 1/7")
    func triangleHalves() {
        var weights = [Double](repeating: 0, count: Int(pm_resample_most_taps(PM_RESAMPLE_TRIANGLE, 4, 2)))
        var first: Int32 = -1
        // Output 0 sits at input 0.5: inputs 0 and 1 (each 3/4 of the peak), and -1 and 2 only
        // partly inside the reach of 2; -1 is off the image and dropped.
        let count = pm_resample_taps(PM_RESAMPLE_TRIANGLE, 4, 2, 0, &first, &weights)
        #expect(first == 0 && count == 3)
        #expect(abs(weights[0] - 0.75 / 1.75) < 1e-12 && abs(weights[1] - 0.75 / 1.75) < 1e-12 && abs(weights[2] - 0.25 / 1.75) < 1e-12)
    }
}
