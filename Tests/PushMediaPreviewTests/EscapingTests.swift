import Foundation
import PushMediaModel
import Testing

@testable import PushMediaPreview

@Suite("HTML escaping and templates")
struct EscapingTests {
    @Test func textEscapesMarkupAndQuotes() {
        #expect(
            HTMLEscaping.text(#"<script>alert("x") & 'y'</script>"#)
                == "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;")
        #expect(HTMLEscaping.text("plain é 🚀") == "plain é 🚀")
        #expect(HTMLEscaping.attribute(#"" onerror="x"#) == "&quot; onerror=&quot;x")
        #expect(HTMLEscaping.text("a\u{0}b") == "a\u{FFFD}b")
    }

    @Test func urlSegmentsArePercentEncoded() {
        #expect(HTMLEscaping.urlSegment("wide image #1.png") == "wide%20image%20%231.png")
        #expect(HTMLEscaping.urlSegment("javascript:alert(1)") == "javascript%3Aalert%281%29")
        #expect(HTMLEscaping.urlSegment("a/b?c%d\"e'") == "a%2Fb%3Fc%25d%22e%27")
        #expect(HTMLEscaping.urlSegment("é") == "%C3%A9")
        #expect(HTMLEscaping.urlSegment("Az09-._~") == "Az09-._~")
        #expect(HTMLEscaping.relativeURL("../out dir/x#1.jpg") == "../out%20dir/x%231.jpg")
        #expect(HTMLEscaping.relativeURL("./a/../b") == "./a/../b")
    }

    @Test func templateFillsPlaceholdersByContext() {
        let t = Template(#"<a href="{{href}}" title="{{tip}}">{{label}}</a>{{raw}} {{n}}%"#)
        #expect(t.placeholders == ["href", "tip", "label", "raw", "n"])
        let html = t.fill([
            "href": .url("../a b/<x>.jpg"), "tip": .attribute(#"say "hi""#), "label": .text("<b>"),
            "raw": .html(HTML.text("<i>")), "n": .number(-50.333333333),
        ])
        #expect(html.markup == #"<a href="../a%20b/%3Cx%3E.jpg" title="say &quot;hi&quot;">&lt;b&gt;</a>&lt;i&gt; -50.3333%"#)
    }

    @Test func valuesAreNeverExpandedAgain() {
        let t = Template("<p>{{a}}</p><p>{{b}}</p>")
        let html = t.fill(["a": .text("{{b}}"), "b": .text("B")])
        #expect(html.markup == "<p>{{b}}</p><p>B</p>")
    }

    @Test func bracesThatAreNotPlaceholdersStayLiteral() {
        let t = Template("a {{ not one }} {{x}} {{")
        #expect(t.placeholders == ["x"])
        #expect(t.fill(["x": "1"]).markup == "a {{ not one }} 1 {{")
    }

    @Test func everyTemplateHasPlaceholdersAndParsesCleanly() {
        for (name, template) in PreviewTemplate.all {
            let filled = template.fill(Dictionary(uniqueKeysWithValues: template.placeholders.map { ($0, TemplateValue.text("V")) }))
            #expect(!filled.markup.contains("{{"), "template \(name) left a placeholder")
        }
        #expect(PreviewTemplate.page.placeholders.contains("items"))
        #expect(PreviewTemplate.page.placeholders.contains("failures"))
    }

    @Test func numbersAreLocaleFreeAndTrimmed() {
        #expect(Format.decimal(200, places: 4) == "200")
        #expect(Format.decimal(-50.33333333, places: 4) == "-50.3333")
        #expect(Format.decimal(0.1 + 0.2, places: 4) == "0.3")
        #expect(Format.decimal(-0.00001, places: 4) == "0")
        #expect(Format.bytes(950) == "950 B")
        #expect(Format.bytes(11_993) == "12 KB")
        #expect(Format.bytes(150_000) == "150 KB")
        #expect(Format.bytes(10_000_000) == "10 MB")
        #expect(Format.bytes(1_250_000) == "1.25 MB")
        #expect(Format.seconds(0.09592) == "0.1 s")
        #expect(Format.seconds(1.2) == "1.2 s")
        #expect(Format.seconds(45.4) == "45 s")
    }

    /// A hostile manifest: every string field carries markup. None of it may reach the page raw.
    @Test func manifestStringsAppearOnlyEscaped() {
        let evilSource = "<script>alert(1)</script>.jpg"
        let evilMessage = #"bad header "onerror=alert(2) x=""#
        let evilFile = #"x" onerror="alert(3).jpg"#
        let evilWarning = "<img src=x onerror=alert(4)>"
        var ok = Sample.image("photos/<b>bold</b>.jpg", expandedFile: evilFile, warnings: [evilWarning])
        ok.attachments[0].url = "javascript:alert(5)"
        var manifest = Sample.manifest([Sample.failed(evilSource, message: evilMessage), ok])
        manifest.profile.name = "</title><script>alert(6)</script>"
        let html = PreviewRenderer.render(
            manifest: manifest, pageDirectory: URL(fileURLWithPath: "/o"),
            manifestDirectory: URL(fileURLWithPath: "/o"), title: "<script>t()</script>", body: "</div>\"'")

        #expect(!html.lowercased().contains("<script"), "no script element at all")
        #expect(!html.contains(#""onerror="#))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<b>bold"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;.jpg"))
        #expect(html.contains("bad header &quot;onerror=alert(2) x=&quot;"))
        #expect(html.contains("&lt;img src=x onerror=alert(4)&gt;"))
        #expect(html.contains("&lt;/title&gt;&lt;script&gt;alert(6)&lt;/script&gt;"))
        #expect(html.contains("&lt;script&gt;t()&lt;/script&gt;"))
        #expect(html.contains("&lt;/div&gt;&quot;&#39;"))
        // The hostile file name: percent-encoded in URLs, escaped in text.
        #expect(html.contains(#"src="x%22%20onerror%3D%22alert%283%29.jpg""#))
        #expect(html.contains("x&quot; onerror=&quot;alert(3).jpg"))
        // A manifest URL is shown as text, never linked.
        #expect(!html.contains(#"href="javascript"#))
        #expect(html.attributeValues("href").allSatisfy { $0.hasPrefix("#") || !$0.contains(":") })
        // Every attribute value is free of raw quotes and angle brackets.
        for name in ["src", "href", "alt", "data-source", "poster"] {
            for value in html.attributeValues(name) {
                #expect(!value.contains("<") && !value.contains(">"), "\(name)=\(value)")
            }
        }
        // The Content-Security-Policy forbids scripts even if something slipped through.
        #expect(html.contains(#"content="default-src 'none';"#))
    }
}
