import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Profiles")
struct ProfileTests {
    @Test("defaults match the documented ones")
    func defaults() {
        let p = Profile.default
        #expect(p.thumbnail.size == 300)
        #expect(p.expanded.maxWidth == 1200 && p.expanded.maxHeight == 600)
        #expect(p.expanded.aspect == AspectRatio(width: 2, height: 1))
        #expect(p.crop == .smart, "faces first, else attention")
        #expect(p.jpeg.quality == 80)
    }

    @Test("crop: attention turns the face detector off; smart and every other strategy parse")
    func cropStrategies() throws {
        for strategy in CropStrategy.allCases {
            let p = try ProfileLoader.parse(Data("crop: \(strategy.rawValue)\n".utf8))
            #expect(p.crop == strategy)
        }
    }

    @Test("a partial JSON file overrides only what it names")
    func partialJSON() throws {
        let p = try ProfileLoader.parse(Data(#"{"thumbnail": {"size": 200}, "crop": "entropy"}"#.utf8))
        #expect(p.thumbnail.size == 200)
        #expect(p.crop == .entropy)
        #expect(p.expanded == Profile.default.expanded)
        #expect(p.jpeg.quality == 80)
    }

    @Test("YAML works too")
    func yaml() throws {
        let p = try ProfileLoader.parse(Data("name: wide\nexpanded:\n  aspect: \"3:1\"\n  maxWidth: 900\njpeg:\n  quality: 70\n".utf8))
        #expect(p.name == "wide")
        #expect(p.expanded.aspect == AspectRatio(width: 3, height: 1))
        #expect(p.expanded.maxHeight == 300)
        #expect(p.jpeg.quality == 70)
    }

    @Test("unknown keys and bad values are refused with a message naming them")
    func refused() {
        #expect(throws: ProfileLoader.Failure.self) { try ProfileLoader.parse(Data(#"{"thumbnial": {"size": 1}}"#.utf8)) }
        do {
            _ = try ProfileLoader.parse(Data(#"{"thumbnail": {"size": 300, "sise": 2}}"#.utf8))
            Issue.record("unknown nested key accepted")
        } catch {
            #expect("\(error)".contains("sise"))
        }
        do {
            _ = try ProfileLoader.parse(Data(#"{"jpeg": {"quality": 140}}"#.utf8))
            Issue.record("quality 140 accepted")
        } catch {
            #expect("\(error)".contains("jpeg.quality"))
        }
        #expect(throws: ProfileLoader.Failure.self) { try ProfileLoader.parse(Data(#"{"expanded": {"aspect": "2x1"}}"#.utf8)) }
        #expect(throws: ProfileLoader.Failure.self) { try ProfileLoader.parse(Data(#"{"crop": "faces"}"#.utf8)) }
    }

    @Test("the profile round-trips through JSON")
    func roundTrip() throws {
        let p = Profile(name: "x", thumbnail: .init(size: 128), crop: .centre)
        let data = try JSONEncoder().encode(p)
        #expect(try ProfileLoader.parse(data) == p)
    }
}
