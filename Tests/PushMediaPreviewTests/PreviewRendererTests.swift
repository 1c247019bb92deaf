import Foundation
import PushMediaModel
import Testing

@testable import PushMediaPreview

@Suite("Preview page structure")
struct PreviewRendererTests {
    let out = URL(fileURLWithPath: "/campaign/out")

    func render(_ manifest: Manifest, page: URL? = nil, budgets: [PushMediaModel.Attachment.Role: Int]? = nil) -> String {
        PreviewRenderer(budgets: budgets).render(
            manifest: manifest, pageDirectory: page ?? out, manifestDirectory: out)
    }

    @Test func everyItemAppearsOnceAndFailuresComeFirst() throws {
        let manifest = Sample.manifest([
            Sample.image("a/one.jpg", thumbFile: "1-thumb.jpg", expandedFile: "1-expanded.jpg"),
            Sample.failed("b/broken.jpg", code: .corruptInput, message: "Premature end of input"),
            Sample.movie("c/clip.mp4"),
            Sample.failed("d/empty.jpg", code: .emptyInput, message: "the file is empty (0 bytes)"),
            Sample.audio("e/jingle.wav"),
        ])
        let html = render(manifest)
        for item in manifest.items {
            #expect(html.occurrences(of: #"data-source="\#(item.source)""#) == 1, "\(item.source)")
        }
        #expect(html.occurrences(of: #"<article class="item""#) == 3)
        #expect(html.occurrences(of: #"<tr class="failure""#) == 2)
        let failures = try #require(html.range(of: #"<section class="failures""#))
        let firstItem = try #require(html.range(of: #"<article class="item""#))
        #expect(failures.lowerBound < firstItem.lowerBound)
        #expect(html.range(of: #"class="summary""#)!.lowerBound < failures.lowerBound)
        let failureSection = html.slice(from: #"<section class="failures""#, to: "</section>")
        #expect(failureSection.contains(#"<code class="code">corrupt_input</code>"#))
        #expect(failureSection.contains("Premature end of input"))
        #expect(failureSection.contains(#"<code class="code">empty_input</code>"#))
        #expect(failureSection.contains(#"<span class="count">2</span>"#))
        // Summary numbers.
        #expect(html.contains("<dt>Items</dt><dd>5</dd>"))
        #expect(html.contains("<dt>OK</dt><dd>3</dd>"))
        #expect(html.contains("<dt>Failed</dt><dd>2</dd>"))
        #expect(!html.contains("{{"))
    }

    @Test func noFailuresSectionWhenAllOK() {
        let html = render(Sample.manifest([Sample.image("a.jpg")]))
        #expect(!html.contains(#"class="failures""#))
        #expect(html.contains(#"<div class="stat good"><dt>Failed</dt><dd>0</dd>"#))
    }

    @Test func clipRectCSSMatchesTheManifest() throws {
        let rect = UnitRect(x: 0.25166666666666665, y: 0, width: 0.5, height: 1)
        let tall = UnitRect(x: 0, y: 0.25, width: 1, height: 0.5)
        let html = render(
            Sample.manifest([
                Sample.image("a.jpg", thumbFile: "a-thumb.jpg", expandedFile: "a-expanded.jpg", rect: rect),
                Sample.image("b.jpg", thumbFile: "b-thumb.jpg", expandedFile: "b-expanded.jpg", rect: tall),
                Sample.image("c.jpg", thumbFile: "c-thumb.jpg", expandedFile: "c-expanded.jpg", rect: nil),
            ]))
        // The expanded image is scaled by 1/Width, 1/Height and shifted by -X/Width, -Y/Height.
        let a = try #require(ClipGeometry(rect))
        #expect(a.widthPercent == 200 && a.heightPercent == 100 && a.topPercent == 0)
        #expect(abs(a.leftPercent - -50.333333333333) < 1e-9)
        let aStyle = #"<img src="a-expanded.jpg" alt="a-expanded.jpg clipped" style="width:200%;height:100%;left:-50.3333%;top:0%">"#
        // Once in the banner, once in the side-by-side comparison.
        #expect(html.occurrences(of: aStyle) == 2)
        #expect(html.contains(#"data-clip="0.2517 0 0.5 1""#))
        #expect(html.contains(#"style="width:100%;height:200%;left:0%;top:-50%""#))
        #expect(html.contains(#"data-clip="0 0.25 1 0.5""#))
        // Without a rect: the expanded image fills the square from the centre, no comparison.
        let c = html.slice(from: #"data-source="c.jpg""#, to: "</article>")
        #expect(!c.contains("thumb clip"))
        #expect(c.contains("no clipping rect"))
        #expect(!c.contains(#"class="compare""#))
        #expect(c.contains(#"<div class="thumb"><img class="fill" src="c-expanded.jpg""#))
        // Invalid rects are not drawn.
        #expect(ClipGeometry(UnitRect(x: 0.8, y: 0, width: 0.5, height: 1)) == nil)
    }

    @Test func imagesAreRelativeToThePageFolder() {
        let manifest = Sample.manifest([Sample.image("a.jpg", thumbFile: "t #1.jpg", expandedFile: "e.jpg")])
        let same = render(manifest)
        // Two banners and the web icon show the thumbnail.
        #expect(same.attributeValues("src").sorted() == ["e.jpg", "e.jpg", "e.jpg", "t%20%231.jpg", "t%20%231.jpg", "t%20%231.jpg"])
        let sibling = render(manifest, page: URL(fileURLWithPath: "/campaign/review"))
        #expect(sibling.attributeValues("src").allSatisfy { $0.hasPrefix("../out/") })
        #expect(sibling.contains(#"src="../out/t%20%231.jpg""#))
        #expect(sibling.contains(#"href="../out/e.jpg""#))
        let deeper = PreviewRenderer().render(
            manifest: manifest, pageDirectory: URL(fileURLWithPath: "/srv/www"),
            manifestDirectory: URL(fileURLWithPath: "/campaign/out dir"))
        #expect(deeper.contains(#"src="../../campaign/out%20dir/e.jpg""#))
        let parent = render(manifest, page: URL(fileURLWithPath: "/campaign"))
        #expect(parent.contains(#"src="out/e.jpg""#))
    }

    @Test func relativePaths() {
        func rel(_ a: String, _ b: String) -> String {
            RelativePath.from(URL(fileURLWithPath: a), to: URL(fileURLWithPath: b))
        }
        #expect(rel("/a/b", "/a/b") == "")
        #expect(rel("/a/b/", "/a/b") == "")
        #expect(rel("/a/b", "/a/c") == "../c/")
        #expect(rel("/a", "/a/b/c") == "b/c/")
        #expect(rel("/a/b/c", "/a") == "../../")
        #expect(rel("/x/./y/../z", "/x/z/w") == "w/")
        #expect(rel("/", "/out") == "out/")
    }

    @Test func sizeBarsAgainstBudgetsAndHardLimits() {
        let manifest = Sample.manifest([
            Sample.image("small.jpg", thumbFile: "s-thumb.jpg", expandedFile: "s-exp.jpg", thumbBytes: 75_000, expandedBytes: 1_500_000),
            Sample.image("huge.jpg", thumbFile: "h-thumb.jpg", expandedFile: "h-exp.jpg", thumbBytes: 10_000, expandedBytes: 12_000_000),
        ])
        let html = render(manifest, budgets: [.thumbnail: 150_000, .expanded: 1_000_000])
        let small = html.slice(from: #"data-source="small.jpg""#, to: "</article>")
        let smallThumb = small.slice(from: #"data-role="thumbnail""#, to: #"data-role="expanded""#)
        // 75 KB of a 150 KB budget: half, ok; of the 10 MB image limit: 0.75 %.
        #expect(smallThumb.contains(#"<div class="bar ok" data-percent="50">"#))
        #expect(smallThumb.contains("50% of 150 KB budget"))
        #expect(smallThumb.contains(#"<div class="bar ok" data-percent="0.75">"#))
        #expect(smallThumb.contains("0.75% of 10 MB image limit"))
        #expect(smallThumb.contains(#"<span class="num">75 KB</span>"#))
        // 1.5 MB against a 1 MB budget: over budget (full bar, warn), but within the hard limit.
        let smallExpanded = small.slice(from: #"data-role="expanded""#, to: "</section>")
        #expect(smallExpanded.contains(#"<div class="bar warn" data-percent="100">"#))
        #expect(smallExpanded.contains("150% of 1 MB budget"))
        #expect(smallExpanded.contains(#"<div class="bar ok" data-percent="15">"#))
        // 12 MB: beyond Apple's 10 MB, red on both bars.
        let huge = html.slice(from: #"data-source="huge.jpg""#, to: "</article>")
        let hugeExpanded = huge.slice(from: #"data-role="expanded""#, to: #"<div class="download"#)
        #expect(hugeExpanded.contains(#"<div class="bar over" data-percent="100">"#))
        #expect(hugeExpanded.occurrences(of: #"class="bar over""#) == 2)
        #expect(hugeExpanded.contains("120% of 10 MB image limit"))
        // Without budgets only the hard-limit bar is drawn.
        let plain = render(manifest)
        let plainSmall = plain.slice(from: #"data-source="small.jpg""#, to: "</article>")
        #expect(plainSmall.occurrences(of: #"<div class="bar "#) == 3) // two attachments + download
        #expect(!plain.contains("budget</span>"))
    }

    @Test func movieAndAudioPlayers() {
        let html = render(Sample.manifest([Sample.movie("clip.mp4"), Sample.audio("jingle.wav")]))
        let clip = html.slice(from: #"data-source="clip.mp4""#, to: "</article>")
        #expect(clip.contains(#"<video class="media" controls preload="none" playsinline src="dddd-media.mp4" poster="cccc-expanded.jpg"></video>"#))
        #expect(clip.contains("poster frame at 2.5 s"))
        #expect(clip.contains("of 50 MB movie limit"))
        #expect(clip.contains("thumbnail hidden in the payload"))
        let jingle = html.slice(from: #"data-source="jingle.wav""#, to: "</article>")
        #expect(jingle.contains(#"<audio controls preload="none" src="eeee-media.wav"></audio>"#))
        #expect(jingle.contains(#"class="thumb placeholder""#))
        #expect(jingle.contains("of 5 MB audio limit"))
    }

    @Test func animatedGIFsPlayAsImages() {
        var anim = Sample.image("anim.gif", thumbFile: "g-thumb.gif", expandedFile: "g-expanded.gif", ext: "gif")
        anim.kind = .animatedImage
        anim.probe = Probe(format: "gif", width: 480, height: 240, frames: 24, durationSeconds: 2.4)
        anim.attachments[1].options.thumbnailTime = 3
        // A GIF shipped as the `media` attachment alone is an image too, never a <video>.
        var mediaOnly = Sample.audio("solo.gif", file: "solo-media.gif")
        mediaOnly.kind = .animatedImage
        mediaOnly.attachments[0].fileExtension = "gif"
        mediaOnly.attachments[0].typeHint = "com.compuserve.gif"
        let html = render(Sample.manifest([anim, mediaOnly]))
        let card = html.slice(from: #"data-source="anim.gif""#, to: "</article>")
        #expect(card.contains(#"<img class="media" src="g-expanded.gif" alt="expanded g-expanded.gif">"#))
        #expect(card.contains("Animated GIF · 1200×600 · 24 frames · thumbnail frame 3"))
        #expect(card.contains("480×240 · 24 frames · 2.4 s"))
        #expect(card.contains(#"<span class="badge">animation</span>"#))
        let solo = html.slice(from: #"data-source="solo.gif""#, to: "</article>")
        #expect(!solo.contains("<video") && !solo.contains("<audio"))
        #expect(solo.contains(#"<img class="media" src="solo-media.gif""#))
        #expect(solo.contains(#"<div class="thumb"><img class="fill" src="solo-media.gif""#))
        #expect(solo.contains("of 10 MB image limit"))
    }

    @Test func warningsAreListedPerItem() {
        let html = render(
            Sample.manifest([
                Sample.image("anim.gif", warnings: ["dropped 12 of 80 frames", "transcoded WebP to JPEG"]),
                Sample.image("plain.jpg", thumbFile: "p-t.jpg", expandedFile: "p-e.jpg"),
            ]))
        let anim = html.slice(from: #"data-source="anim.gif""#, to: "</article>")
        #expect(anim.contains(#"<li class="warning">dropped 12 of 80 frames</li>"#))
        #expect(anim.contains(#"<li class="warning">transcoded WebP to JPEG</li>"#))
        #expect(!html.slice(from: #"data-source="plain.jpg""#, to: "</article>").contains("warning"))
        #expect(html.contains(#"<div class="stat caution"><dt>With warnings</dt><dd>1</dd>"#))
    }

    @Test func downloadEstimateAtOneMegabit() {
        // 125,000 bytes = 1,000,000 bits = 1 s at 1 Mbps.
        #expect(DownloadEstimate.seconds(bytes: 125_000) == 1)
        #expect(DownloadEstimate.seconds(bytes: 3_750_000) == 30)
        #expect(DownloadEstimate.seconds(bytes: 125_000, bitsPerSecond: 10_000_000) == 0.1)

        let quick = Sample.image("quick.jpg", thumbFile: "q-t.jpg", expandedFile: "q-e.jpg", thumbBytes: 25_000, expandedBytes: 100_000)
        let exact = Sample.movie("exact.mp4", posterFile: "x-p.jpg", movieFile: "x.mp4", bytes: 3_750_000 - 40_000)
        let slow = Sample.movie("slow.mp4", posterFile: "s-p.jpg", movieFile: "s.mp4", bytes: 5_000_000)
        let manifest = Sample.manifest([quick, exact, slow, Sample.failed("bad.jpg")])
        #expect(DownloadEstimate.seconds(for: quick) == 1)

        let summary = PreviewSummary(manifest)
        #expect(summary.estimates.map(\.source) == ["exact.mp4", "quick.jpg", "slow.mp4"])
        #expect(summary.estimates.map(\.seconds) == [30, 1, 40.32])
        #expect(summary.estimates.map(\.overLimit) == [false, false, true])

        // Against the manifest profile's delivery target: 20 s at 1 Mbit/s by default.
        let html = render(manifest)
        let table = html.slice(from: #"<section class="estimates""#, to: "</section>")
        #expect(
            table.contains("1 Mbit/s, against the profile&#39;s 20 s target (the extension gets 30 s)")
                || table.contains("1 Mbit/s, against the profile's 20 s target"))
        #expect(
            table.contains(
                ##"<tr class="estimate ok" data-seconds="1"><th scope="row"><a href="#item-3"><bdi>quick.jpg</bdi></a></th><td class="num">125 KB</td>"##
            ))
        #expect(table.contains(#"<tr class="estimate over" data-seconds="30">"#))
        #expect(table.contains(#"<tr class="estimate over" data-seconds="40.32">"#))
        #expect(table.contains("<td class=\"num\">40 s</td>"))
        #expect(table.contains("150% of 20 s") && table.contains("202% of 20 s"))
        #expect(!table.contains("bad.jpg"))
        let quickCard = html.slice(from: #"data-source="quick.jpg""#, to: "</article>")
        #expect(quickCard.contains(#"<div class="download ok" data-seconds="1"><h4>Download at 1 Mbit/s</h4>"#))
        #expect(quickCard.contains("1 s of 20 s"))

        // A profile on a slow link: 256 kbit/s, 6 s. quick.jpg (125 KB) takes 3.9 s: past half.
        var slowManifest = manifest
        slowManifest.profile.delivery = Profile.Delivery(linkBitsPerSecond: 256_000, seconds: 6)
        let slowPage = render(slowManifest)
        let slowQuick = slowPage.slice(from: #"data-source="quick.jpg""#, to: "</article>")
        #expect(slowQuick.contains(#"<div class="download warn" data-seconds="3.9063"><h4>Download at 256 kbit/s</h4>"#), "\(slowQuick)")
        #expect(slowQuick.contains("3.9 s of 6 s"))
    }

    @Test func summaryCountsSharedFilesOnceAndFindsTheLargest() {
        let a = Sample.image("a.jpg", thumbFile: "same-thumb.jpg", expandedFile: "a-exp.jpg", thumbBytes: 1_000, expandedBytes: 50_000)
        let b = Sample.image("b.jpg", thumbFile: "same-thumb.jpg", expandedFile: "b-exp.jpg", thumbBytes: 1_000, expandedBytes: 70_000)
        let manifest = Sample.manifest([a, b, Sample.failed("c.jpg")])
        let summary = PreviewSummary(manifest)
        #expect(summary.filesToHost == 3)
        #expect(summary.bytesToHost == 121_000)
        #expect(manifest.summary.outputBytes == 122_000)
        #expect(summary.largest?.source == "b.jpg")
        #expect(summary.largest?.attachment.file == "b-exp.jpg")
        #expect(summary.ok == 2 && summary.failed == 1 && summary.total == 3)
        let html = render(manifest)
        #expect(html.contains(#"<dd data-bytes="121000">121 KB</dd><span class="sub">in 3 files</span>"#))
        #expect(html.contains(#"<dd>70 KB</dd><span class="sub"><bdi>expanded of b.jpg</bdi></span>"#))
    }

    @Test("the Android card: large icon and big picture from the Android image, its download against FCM's 5 s; the summary counts those over budget")
    func androidCards() {
        func withAndroid(_ source: String, bytes: Int, budget: Int = 200_000) -> Item {
            var item = Sample.image(source)
            var android = PushMediaModel.Attachment(
                identifier: "android", role: .android, file: "\(source.prefix(1))ndr-android.jpg", typeHint: "public.jpeg", fileExtension: "jpg",
                mimeType: "image/jpeg", bytes: bytes, sha256: String(repeating: "e", count: 64), width: 1024, height: 512, budget: budget,
                options: .init(thumbnailHidden: false))
            android.subjectInCentreSquare = bytes < 300_000
            item.attachments.append(android)
            return item
        }
        // 150 KB: 1.2 s at 1 Mbit/s; 700 KB: over its budget and 5.6 s, over FCM's 5 s.
        let html = render(Sample.manifest([withAndroid("a.jpg", bytes: 150_000), withAndroid("b.jpg", bytes: 700_000), Sample.image("c.jpg")]))
        #expect(html.occurrences(of: #"data-android="collapsed""#) == 2 && html.occurrences(of: #"data-android="expanded""#) == 2)
        #expect(html.occurrences(of: #"data-android="none""#) == 1)
        #expect(html.contains(#"<div class="large-icon"><img src="andr-android.jpg""#))
        #expect(html.contains(#"<div class="big-picture"><img src="bndr-android.jpg""#))
        #expect(html.contains(#"<div class="download ok" data-android-seconds="1.2">"#), "\(html.slice(from: "data-android-seconds", to: ">"))")
        #expect(html.contains(#"<div class="download over" data-android-seconds="5.6">"#))
        #expect(html.contains("holds the subject") && html.contains("the subject is outside it"))
        #expect(html.contains(#"<dd data-android-over="1">1</dd>"#))
        // The iOS download estimate leaves the Android image out.
        #expect(html.contains(#"data-seconds="0.576""#), "12 KB + 60 KB at 1 Mbit/s")
    }

    @Test("the web card: the square thumbnail as icon and the Android image below, still JPEGs and PNGs only")
    func webCards() {
        var photo = Sample.image("a.jpg")
        photo.attachments.append(
            PushMediaModel.Attachment(
                identifier: "android", role: .android, file: "andr-android.jpg", typeHint: "public.jpeg", fileExtension: "jpg",
                mimeType: "image/jpeg", bytes: 90_000, sha256: String(repeating: "e", count: 64), width: 1024, height: 512,
                options: .init(thumbnailHidden: false)))
        // A GIF thumbnail is never a web icon; without an Android image there is no web image.
        let gif = Sample.image("b.gif", thumbFile: "bbbb-thumb.gif", ext: "gif")
        let html = render(Sample.manifest([photo, gif]))
        #expect(html.occurrences(of: #"data-platform="web""#) == 2)
        #expect(html.contains(#"<div class="web-icon"><img src="aaaa-thumb.jpg" alt="web icon aaaa-thumb.jpg"></div>"#))
        #expect(html.contains(#"<div class="web-image"><img src="andr-android.jpg" alt="web image andr-android.jpg"></div>"#))
        #expect(html.occurrences(of: #"class="web-icon""#) == 1 && html.occurrences(of: #"class="web-image""#) == 1)
        #expect(html.contains("Chrome on Windows and Android: icon 300×300, image 1024×512"))
        #expect(html.contains("No still image: Chrome shows the text alone"))
    }

    @Test func titleAndBodyAppearInEveryCard() {
        let html = PreviewRenderer(title: "Spring sale", body: "Half price until Sunday").render(
            manifest: Sample.manifest([Sample.image("a.jpg"), Sample.movie("b.mp4")]),
            pageDirectory: out, manifestDirectory: out)
        // a.jpg: two banners + expanded; b.mp4: one banner (no thumbnail file) + expanded; and
        // each an Android card (text only: these items have no Android image) and a web card.
        #expect(html.occurrences(of: #"<div class="title">Spring sale</div>"#) == 9)
        #expect(html.occurrences(of: #"<div class="body">Half price until Sunday</div>"#) == 9)
        #expect(html.occurrences(of: #"data-android="none""#) == 2)
        let defaults = render(Sample.manifest([Sample.image("a.jpg")]))
        #expect(defaults.contains(#"<div class="title">\#(PreviewRenderer.defaultTitle)</div>"#))
    }

    @Test func emptyManifest() {
        let html = render(Sample.manifest([]))
        #expect(html.contains("No item was processed."))
        #expect(html.contains("No attachments to download."))
        #expect(html.contains("<dt>Items</dt><dd>0</dd>"))
        #expect(!html.contains("{{"))
    }
}
