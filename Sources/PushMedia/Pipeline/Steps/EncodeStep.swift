import PushMediaModel

/// Encodes every variant: JPEG (optimized Huffman, profile quality) for opaque images, PNG for
/// images with real alpha.
struct EncodeStep: PipelineStep {
    var name: String { "encode" }

    func run(_ context: ProcessingContext) throws {
        let format = ImageEncoder.format(keepsAlpha: context.keepsAlpha)
        context.encoded = try context.variants.map { variant in
            do {
                let data = try ImageEncoder.encode(variant.image, as: format, profile: context.profile)
                return EncodedImage(
                    role: variant.role, data: data, format: format, width: variant.image.width,
                    height: variant.image.height)
            } catch let error as Vips.Error {
                throw ItemError(.encodeFailed, "cannot encode the \(variant.role.rawValue) as \(format.rawValue): \(error.message)")
            }
        }
        context.variants = []  // pixels are no longer needed
        context.working = nil
    }
}
