import CVips
import CVipsShims
import Foundation

/// libvips, seen from Swift. This folder (`Native/`) is the only place in PushMedia that touches C.
enum Vips {
    /// A libvips failure, with the library's own message.
    struct Error: Swift.Error, CustomStringConvertible {
        /// What PushMedia was doing, e.g. `thumbnail`.
        var operation: String
        /// libvips' error buffer text.
        var message: String
        init(operation: String, message: String) {
            self.operation = operation
            // libvips' error buffer is shared by the process: a concurrent failure can take
            // this one's text. Say so rather than print nothing.
            self.message = message.isEmpty ? "\(operation) failed (libvips gave no details)" : message
        }
        var description: String { "\(operation): \(message)" }

        /// Whether the message is a decoder's failing on the source's pixels: PushMedia's GIF
        /// decoder (`gif_read: frame N: …`) or libvips' loaders of animations (`gifload…`,
        /// `webpload…`), whose frames are decoded lazily, by whatever pass reads them first.
        var isSourceDecodeFailure: Bool {
            ["gif_read:", "gifload", "webpload"].contains { message.contains($0) }
        }
    }

    /// libvips' process-wide settings, decided here and handed to the start-up shim.
    struct Settings: Equatable {
        /// Threads per libvips operation; 0 leaves libvips' own choice.
        var threadsPerOperation: Int
        /// Whether libvips may compile loops at run time with liborc.
        var runTimeCode: Bool
        /// Whether libvips' warnings reach standard error.
        var warnings: Bool

        /// What PushMedia runs with. One thread per operation: items run in parallel (`--jobs`,
        /// one per core by default), so libvips' own threads would only oversubscribe the cores,
        /// and every libvips thread keeps buffers for each operation of an animation's per-frame
        /// pipeline (a 1200x1200x200 GIF peaks at 215 MB instead of 280 MB, no slower;
        /// BENCHMARKS.md); `VIPS_CONCURRENCY`, when set, still decides. No liborc: Debian
        /// bookworm's liborc 0.4.33 allocates and frees its run-time code without a lock, so two
        /// threads that build and drop operations at once can corrupt its list of code chunks
        /// (a crash seen in orc_code_allocate_codemem), and libvips' plain C loops cost about
        /// the same (docs/benchmarks/liborc.md). Decoder warnings are noise in batch output
        /// (the ones that matter fail the load through `fail_on`) unless
        /// `PUSHMEDIA_VIPS_WARNINGS` is set.
        static func product(environment: [String: String] = ProcessInfo.processInfo.environment) -> Settings {
            Settings(
                threadsPerOperation: environment["VIPS_CONCURRENCY"] == nil ? 1 : 0, runTimeCode: false,
                warnings: environment["PUSHMEDIA_VIPS_WARNINGS"] != nil)
        }

        var native: pm_vips_settings {
            pm_vips_settings(
                threads_per_operation: Int32(clamping: threadsPerOperation), run_time_code: runTimeCode ? 1 : 0, warnings: warnings ? 1 : 0)
        }
    }

    /// Starts libvips once per process with ``Settings/product(environment:)`` (later calls
    /// return at once).
    static func start() throws {
        var settings = Settings.product().native
        if pm_vips_startup(CommandLine.arguments.first ?? "pushmedia", &settings) != 0 {
            throw Error(operation: "vips_init", message: takeError())
        }
    }

    /// Whether libvips compiles loops at run time (liborc) in this process.
    static var usesRunTimeCode: Bool { pm_vips_run_time_code() != 0 }

    /// libvips' version, e.g. `8.14.1`.
    static var version: String {
        String(cString: vips_version_string())
    }

    /// Takes and clears the text of libvips' error buffer. Only called when a libvips call
    /// failed, which it notes for ``attributed(until:_:)``.
    static func takeError() -> String {
        noteLibraryFailure()
        let text = pm_vips_error_take()
        defer { g_free(text) }
        let message = text.map { String(cString: $0) } ?? ""
        vips_error_clear()
        return message.trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: "\n").map(String.init)
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            .joined(separator: "; ")
    }

    /// Runs a C call that returns 0 on success and hands back an image.
    static func call(
        _ operation: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws -> Image {
        var out: UnsafeMutablePointer<VipsImage>?
        guard body(&out) == 0, let out else {
            throw Error(operation: operation, message: takeError())
        }
        return Image(owning: out)
    }

    /// How strict decoders are.
    enum FailOn: Int32 {
        case none = 0
        case truncated = 1
        case error = 2
        case warning = 3
    }
}

extension Vips {
    /// A read-only byte source (a file descriptor) that libvips loaders read from. Using a
    /// descriptor instead of a file name means names with `[` or `:` are never parsed as options.
    /// Its format is sniffed from the first bytes of that same descriptor, and decides the
    /// loader (``Vips/Image/header(from:failOn:allPages:)``). Making one starts libvips the
    /// way PushMedia does (``Vips/start()``) if nothing has yet: libvips started by its first
    /// call instead would load all of its modules and block no loader.
    final class Source: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<VipsSource>
        /// The format of the bytes behind the descriptor (``MediaSniffer``), nil when unknown.
        let format: MediaFormat?
        /// The descriptor libvips reads a copy of (read it with `pread`: the position is shared).
        let descriptor: Int32

        init(path: String) throws {
            try Vips.start()
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw Error(operation: "open", message: String(cString: strerror(errno)))
            }
            var header = [UInt8](repeating: 0, count: MediaSniffer.headerLength)
            let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            self.format = count > 0 ? MediaSniffer.detect(header.prefix(count)) : nil
            guard let source = vips_source_new_from_descriptor(fd) else {
                close(fd)
                throw Error(operation: "vips_source_new_from_descriptor", message: takeError())
            }
            // vips dup()s the descriptor; ours can be closed when the source goes.
            self.descriptor = fd
            self.pointer = source
        }

        deinit {
            g_object_unref(pointer)
            close(descriptor)
        }
    }
}

extension Vips {
    /// An owned `VipsImage` reference, released in `deinit`. Images are immutable once built,
    /// so sharing one between threads for reading is safe.
    final class Image: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<VipsImage>

        init(owning pointer: UnsafeMutablePointer<VipsImage>) {
            self.pointer = pointer
        }

        deinit {
            g_object_unref(pointer)
        }

        var width: Int { Int(vips_image_get_width(pointer)) }
        var height: Int { Int(vips_image_get_height(pointer)) }
        var bands: Int { Int(vips_image_get_bands(pointer)) }
        var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
        var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
        var bandFormat: VipsBandFormat { vips_image_get_format(pointer) }
        var pageCount: Int { Int(vips_image_get_n_pages(pointer)) }
        /// Height of one page (frame) of a multi-page image.
        var pageHeight: Int { Int(vips_image_get_page_height(pointer)) }

        /// 8-bit sRGB in 3 bands or grey in 1, no alpha: the pixels PushMedia's own code paths
        /// (the still decode's two-pass reduce, the attention score) take as they are.
        var isPlain8BitSRGBOrGrey: Bool {
            bandFormat == VIPS_FORMAT_UCHAR
                && ((bands == 3 && interpretation == VIPS_INTERPRETATION_sRGB) || (bands == 1 && interpretation == VIPS_INTERPRETATION_B_W))
        }

        /// Bits per sample of the band format.
        var bitDepth: Int {
            switch bandFormat {
            case VIPS_FORMAT_UCHAR, VIPS_FORMAT_CHAR: 8
            case VIPS_FORMAT_USHORT, VIPS_FORMAT_SHORT: 16
            case VIPS_FORMAT_UINT, VIPS_FORMAT_INT, VIPS_FORMAT_FLOAT: 32
            default: 64
            }
        }

        /// Name of the colour space, in libvips' nicknames (`srgb`, `cmyk`, `b-w`, …).
        var interpretationName: String {
            guard let name = vips_enum_nick(vips_interpretation_get_type(), Int32(interpretation.rawValue)) else {
                return "unknown"
            }
            return String(cString: name)
        }

        func has(field: String) -> Bool {
            vips_image_get_typeof(pointer, field) != 0
        }

        func int(field: String) -> Int? {
            guard has(field: field) else { return nil }
            var value: Int32 = 0
            guard vips_image_get_int(pointer, field, &value) == 0 else {
                vips_error_clear()
                return nil
            }
            return Int(value)
        }

        func string(field: String) -> String? {
            guard has(field: field) else { return nil }
            var value: UnsafePointer<CChar>?
            guard vips_image_get_string(pointer, field, &value) == 0, let value else {
                vips_error_clear()
                return nil
            }
            return String(cString: value)
        }

        /// Every metadata field name on the image (EXIF, XMP, ICC, …).
        var fieldNames: [String] {
            guard let names = vips_image_get_fields(pointer) else { return [] }
            defer { g_strfreev(names) }
            var out: [String] = []
            var index = 0
            while let name = names[index] {
                out.append(String(cString: name))
                index += 1
            }
            return out
        }
    }
}

extension Vips.Image {
    /// An int-array metadata field (e.g. a GIF's per-frame `delay`).
    func intArray(field: String) -> [Int]? {
        guard has(field: field) else { return nil }
        var values: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        guard vips_image_get_array_int(pointer, field, &values, &count) == 0, let values else {
            vips_error_clear()
            return nil
        }
        return (0..<Int(count)).map { Int(values[$0]) }
    }
}
