import PushMediaModel

/// The variants as bytes within their budgets, with what their attachments need to say.
struct Encoded {
    /// The thumbnail, then the expanded variant, then the Android image (when it fitted its budget).
    var images: [EncodedImage]
    /// The thumbnail's square inside the expanded variant.
    var clipRect: UnitRect
    /// The animation frame that stands for the whole, before any frame was dropped.
    var representativeFrame: Int?
    /// Where each variant was cut from the source, as unit rects (`Attachment.sourceRect`).
    var sourceRects: [Attachment.Role: UnitRect] = [:]
    /// Whether the Android image's centre square holds the subject.
    var androidSubjectInCentreSquare: Bool?

    /// Encodes every variant within its byte budget: JPEG for opaque stills, PNG for real alpha,
    /// animated GIF for animations. The thumbnail is made first; the expanded variant's budget
    /// is what the notification's delivery budget leaves after it. Lossy steps the budget forced
    /// are reported as warnings.
    static func encode(_ framed: Framed, within delivery: DeliveryBudget, _ run: ItemRun) throws -> Encoded {
        var images: [EncodedImage] = []
        for (role, pixels) in [(Attachment.Role.thumbnail, framed.thumbnail), (.expanded, framed.expanded)] {
            let format = ImageEncoder.format(for: pixels, keepsAlpha: framed.keepsAlpha)
            let spent = images.reduce(0) { $0 + $1.data.count }
            let budget = delivery.image(role, animated: format == .gif, spent: spent)
            do {
                let encoded = try ImageEncoder.encode(
                    pixels, role: role, as: format, budget: budget, profile: run.profile, deadline: run.deadline,
                    scratch: run.options.outputDirectory)
                run.warnings += warnings(for: encoded, total: pixels.frameCount, maxFramesPerSecond: run.profile.animation.maxFramesPerSecond)
                images.append(encoded)
            } catch let error as Vips.Error {
                if run.isPastDeadline { throw run.timedOut("encoding the \(role.rawValue)") }
                // An animation's frames are decoded while it is encoded: a damaged frame the
                // earlier passes did not reach is the input's fault, not the encoder's (and no
                // retry mends it).
                if !pixels.isStill, error.isSourceDecodeFailure {
                    throw ItemError(.corruptInput, "cannot decode the animation: \(error.message)")
                }
                throw ItemError(.encodeFailed, "cannot encode the \(role.rawValue) as \(format.rawValue): \(error.message)")
            } catch var error as ItemError where error.code == .overBudget {
                error.message += "; \(delivery.explanation(spent: spent))"
                throw error
            }
        }
        if let android = try encodeAndroid(framed, within: delivery, run) { images.append(android) }
        return Encoded(
            images: images, clipRect: framed.clipRect, representativeFrame: framed.representativeFrame,
            sourceRects: Dictionary(uniqueKeysWithValues: images.compactMap { image in framed.sourceRect(image.role).map { (image.role, $0) } }),
            androidSubjectInCentreSquare: framed.androidWindow.subjectInCentreSquare)
    }

    /// The Android image within its own budget (``DeliveryBudget/android``): Android downloads it
    /// alone, so it takes nothing from the iOS notification's bytes. One that cannot fit is left
    /// out with a warning (the iOS variants and the payloads stand without it), never failing the item.
    static func encodeAndroid(_ framed: Framed, within delivery: DeliveryBudget, _ run: ItemRun) throws -> EncodedImage? {
        let pixels = framed.android
        let format = ImageEncoder.format(for: pixels, keepsAlpha: framed.androidKeepsAlpha)
        do {
            let encoded = try ImageEncoder.encode(
                pixels, role: .android, as: format, budget: delivery.android, profile: run.profile, deadline: run.deadline)
            run.warnings += warnings(for: encoded, total: nil)
            if !framed.androidWindow.subjectInCentreSquare {
                run.warnings.append(
                    "android: the subject is not in the centre square Android shows collapsed: no 2:1 window at least "
                        + "\(run.profile.android.minWidth) pixels wide (android.minWidth) has it there")
            }
            return encoded
        } catch let error as Vips.Error {
            if run.isPastDeadline { throw run.timedOut("encoding the android image") }
            throw ItemError(.encodeFailed, "cannot encode the android image as \(format.rawValue): \(error.message)")
        } catch let error as ItemError where error.code == .overBudget {
            run.warnings.append("android: no Android image: \(error.message)")
            return nil
        }
    }

    /// Bytes of the iOS variants together (what the notification's other attachments are budgeted after).
    var bytes: Int { images.filter(\.role.isIOS).reduce(0) { $0 + $1.data.count } }

    static func warnings(for encoded: EncodedImage, total: Int?, maxFramesPerSecond: Int = 0) -> [String] {
        let role = encoded.role.rawValue
        var out: [String] = []
        if let kept = encoded.frames, let total, kept < total {
            out.append(
                encoded.settings.frameStep > 1
                    ? "\(role): dropped frames to fit \(encoded.budget) bytes: kept \(kept) of \(total), delays merged so the duration is unchanged"
                    : "\(role): capped at \(maxFramesPerSecond) frames per second: kept \(kept) of \(total), delays merged so the duration is unchanged"
            )
        }
        if encoded.settings.scale < 1 {
            out.append(
                "\(role): downscaled to \(encoded.width)x\(encoded.height) (scale \(String(format: "%.2f", encoded.settings.scale))) to fit \(encoded.budget) bytes"
            )
        }
        if let colours = encoded.settings.colours, encoded.format == .png || colours < 256 {
            out.append("\(role): reduced to a palette of \(colours) colours to fit \(encoded.budget) bytes")
        }
        return out
    }
}
