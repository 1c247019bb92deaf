import Foundation
import PushMediaModel
import Testing

/// `pushmedia process` over a large mixed corpus: every fixture, cut-short and byte-flipped
/// copies of each, random bytes, and the hostile corpus. The binary must not crash and must
/// account for every file exactly once, `ok` or `failed` with a code.
@Suite("Mixed corpus through the binary")
struct CorpusTests {
    /// Writes damaged variants of `data` (named after `name`) into `folder`; returns their names.
    static func damagedCopies(of data: Data, name: String, into folder: URL, seed: inout UInt64) throws -> [String] {
        func random() -> UInt64 {
            // splitmix64: the same corpus on every run.
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var variants: [(String, Data)] = [
            ("half-\(name)", data.prefix(data.count / 2)),
            ("head-\(name)", data.prefix(min(data.count, 700))),
        ]
        var flipped = [UInt8](data)
        if flipped.count > 64 {
            for _ in 0..<max(4, flipped.count / 2000) {
                let index = 16 + Int(random() % UInt64(flipped.count - 16))
                flipped[index] ^= UInt8(truncatingIfNeeded: random() | 1)
            }
        }
        variants.append(("flipped-\(name)", Data(flipped)))
        for (variant, bytes) in variants {
            try bytes.write(to: folder.appendingPathComponent(variant))
        }
        return variants.map(\.0)
    }

    @Test("fixtures, damaged copies, random bytes and crafted files: no crash, every file once in the manifest")
    func mixedCorpus() throws {
        let workspace = try HostileCorpus.Workspace()
        let input = workspace.input
        let listener = try LoopbackListener()

        var expected: Set<String> = []
        var seed: UInt64 = 15
        for fixture in try Fixtures.allSources() {
            let name = fixture.replacingOccurrences(of: "/", with: "-")
            let data = try Data(contentsOf: Fixtures.url(fixture))
            try data.write(to: input.appendingPathComponent(name))
            expected.insert(name)
            expected.formUnion(try Self.damagedCopies(of: data, name: name, into: input, seed: &seed))
        }
        for (index, size) in [1, 3, 64, 4096, 100_000].enumerated() {
            let name = "random-\(index).mp3"
            var bytes = [UInt8](repeating: 0, count: size)
            for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) }
            try Data(HostileCorpus.id3.prefix(index % 2 == 0 ? 0 : 10) + bytes).write(to: input.appendingPathComponent(name))
            expected.insert(name)
        }
        let hostile = try HostileCorpus.write(into: input, port: listener.port, secrets: workspace.secrets)
        expected.formUnion(hostile.map(\.name))

        let out = workspace.out
        let result = try CommandRunner.run(CommandRunner.pushmedia, ["process", input.path, "--out", out.path, "--jobs", "2"])
        // 1: some items failed, the run itself completed (no crash, no signal, no usage error).
        #expect(result.status == 1, "exit \(result.status): \(result.error.suffix(2000))")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let sources = manifest.items.map(\.source)
        #expect(sources.count == expected.count, "\(sources.count) items for \(expected.count) files")
        #expect(Set(sources) == expected)
        #expect(Set(sources).count == sources.count, "an item appears twice")
        for item in manifest.items {
            switch item.status {
            case .ok: #expect(item.error == nil && !item.attachments.isEmpty, "\(item.source)")
            case .failed: #expect(item.error != nil && item.attachments.isEmpty, "\(item.source)")
            }
        }
        // Every fixture that is not broken on purpose is still ok among the damaged copies.
        let byName = Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.source, $0) })
        for fixture in try Fixtures.allSources() where !fixture.hasPrefix("broken/") {
            let name = fixture.replacingOccurrences(of: "/", with: "-")
            #expect(byName[name]?.status == .ok, "\(name): \(byName[name]?.error?.message ?? "")")
        }
        for entry in hostile {
            #expect(byName[entry.name]?.error?.code.rawValue == entry.code, "\(entry.name)")
        }
        #expect(listener.takeConnections() == 0)
    }
}
