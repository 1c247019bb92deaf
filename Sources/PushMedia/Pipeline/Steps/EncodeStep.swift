import PushMediaModel

/// Encodes every variant within its byte budget: JPEG for opaque stills, PNG for real alpha,
/// animated GIF for animations. Lossy steps the budget forced are reported as warnings.
struct EncodeStep: PipelineStep {
    var name: String { "encode" }

    func run(_ context: ProcessingContext) throws {
        let budgets = context.profile.budgets
        context.encoded = try context.variants.map { variant in
            let format = ImageEncoder.format(for: variant.pixels, keepsAlpha: context.keepsAlpha)
            let budget =
                format == .gif ? budgets.animated : (variant.role == .thumbnail ? budgets.thumbnail : budgets.expanded)
            do {
                let encoded = try ImageEncoder.encode(
                    variant.pixels, role: variant.role, as: format, budget: budget, profile: context.profile,
                    deadline: context.deadline)
                context.warnings += Self.warnings(for: encoded, total: variant.pixels.frameCount)
                return encoded
            } catch let error as Vips.Error {
                throw ItemError(.encodeFailed, "cannot encode the \(variant.role.rawValue) as \(format.rawValue): \(error.message)")
            }
        }
        context.variants = []  // pixels are no longer needed
        context.working = nil
    }

    static func warnings(for encoded: EncodedImage, total: Int?) -> [String] {
        let role = encoded.role.rawValue
        var out: [String] = []
        if let kept = encoded.frames, let total, kept < total {
            out.append("\(role): dropped frames to fit \(encoded.budget) bytes: kept \(kept) of \(total), delays merged so the duration is unchanged")
        }
        if encoded.settings.scale < 1 {
            out.append("\(role): downscaled to \(encoded.width)x\(encoded.height) (scale \(String(format: "%.2f", encoded.settings.scale))) to fit \(encoded.budget) bytes")
        }
        if let colours = encoded.settings.colours, encoded.format == .png || colours < 256 {
            out.append("\(role): reduced to a palette of \(colours) colours to fit \(encoded.budget) bytes")
        }
        return out
    }
}
