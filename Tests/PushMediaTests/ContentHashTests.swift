import Crypto
import Foundation
import Testing

@testable import PushMedia

@Suite("Content hash")
struct ContentHashTests {
    @Test(
        "a file streamed through the reused buffer hashes as its bytes do, and its pieces are its bytes in order",
        arguments: [0, 1, ContentHash.readSize - 1, ContentHash.readSize, 3 * ContentHash.readSize + 12_345])
    func streamedFile(size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let file = try Fixtures.temporaryFolder().appendingPathComponent("input.bin")
        try bytes.write(to: file)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var pieces = Data()
        var calls = 0
        let (sha256, count) = try ContentHash.sha256(of: handle) { piece in
            pieces.append(contentsOf: piece)
            calls += 1
        }
        #expect(count == size)
        #expect(pieces == bytes)
        #expect(calls == (size + ContentHash.readSize - 1) / ContentHash.readSize)
        let expected = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        #expect(sha256 == expected)
        #expect(try ContentHash.sha256(ofFileAt: file).sha256 == expected)
    }
}
