import Foundation
import PushMediaModel
import Testing

@testable import PushMediaPreview

/// The faces of `probe.faces` drawn on the large thumbnail, placed through its `sourceRect`.
@Suite("Preview face boxes")
struct FaceBoxTests {
    func render(_ item: Item) -> String {
        let out = URL(fileURLWithPath: "/campaign/out")
        return PreviewRenderer(budgets: nil).render(manifest: Sample.manifest([item]), pageDirectory: out, manifestDirectory: out)
    }

    /// A 2400×800 banner: the thumbnail is the left third, a face in it, one outside it, and one
    /// across its edge.
    func banner() -> Item {
        var item = Sample.image("people/banner.jpg", thumbFile: "t-thumb.jpg", expandedFile: "t-expanded.jpg")
        item.probe?.faces = [
            UnitRect(x: 0.1, y: 0.2, width: 0.05, height: 0.15), // inside the thumbnail
            UnitRect(x: 0.8, y: 0.1, width: 0.05, height: 0.15), // outside it
            UnitRect(x: 0.3, y: 0.5, width: 0.06, height: 0.1), // across its right edge
        ]
        item.probe?.subjectStrategy = .faces
        for index in item.attachments.indices where item.attachments[index].role == .thumbnail {
            item.attachments[index].sourceRect = UnitRect(x: 0, y: 0, width: 1.0 / 3, height: 1)
        }
        return item
    }

    @Test func facesOnTheThumbnailAreBoxesInItsPercentages() throws {
        let html = render(banner())
        let compare = html.slice(from: #"<div class="compare">"#, to: "</figure>")
        #expect(compare.contains(#"<div class="thumb faces" data-faces="2">"#), "\(compare)")
        #expect(html.occurrences(of: #"<span class="face-box""#) == 2)
        // 0.1 of the source is 30 % of a thumbnail a third as wide; 0.2 of its height is 20 %.
        #expect(html.contains(#"data-face="0.1 0.2 0.05 0.15" style="left:30%;top:20%;width:15%;height:15%""#), "\(compare)")
        // The face across the edge is clipped at 100 %.
        #expect(html.contains(#"data-face="0.3 0.5 0.06 0.1" style="left:90%;top:50%;width:10%;height:10%""#), "\(compare)")
        #expect(!html.contains(#"data-face="0.8"#))
        #expect(html.contains("3 faces found, 2 shown"))
        #expect(!html.contains("{{"))
    }

    @Test func noFacesNoBoxes() {
        var item = banner()
        item.probe?.faces = []
        let html = render(item)
        #expect(!html.contains(#"<span class="face-box""#))
        #expect(!html.contains("faces found"))
        var unplaced = banner()
        for index in unplaced.attachments.indices { unplaced.attachments[index].sourceRect = nil }
        #expect(!render(unplaced).contains(#"<span class="face-box""#), "without a sourceRect nothing can be placed")
    }
}
