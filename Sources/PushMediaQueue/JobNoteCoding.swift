import Foundation

/// Encodes and decodes the error history column (a JSON array of ``JobNote``).
enum JobNoteCoding {
    static func encode(_ notes: [JobNote]) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(notes)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String, table: String) throws -> [JobNote] {
        guard !text.isEmpty else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode([JobNote].self, from: Data(text.utf8))
        } catch {
            throw JobQueueError.corruptRow(table: table, reason: "error_history is not a JSON array of notes: \(error)")
        }
    }
}
