extension String {
    /// The NUL-terminated UTF-8 text a C function wrote into `buffer` (all of it when there is no
    /// NUL; invalid bytes repaired).
    init(cBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
