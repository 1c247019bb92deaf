import Foundation
import PushPayload
import Testing

@Suite("PayloadJSON serialization")
struct PayloadJSONTests {
    @Test func compactSortsKeysAndDoesNotEscapeSlashes() {
        let json = PayloadJSON.object(["b": .int(1), "a": .string("https://x.example/y"), "c": .array([.bool(true), .bool(false)])])
        #expect(json.compactString == #"{"a":"https://x.example/y","b":1,"c":[true,false]}"#)
        #expect(json.compactByteCount == 50)
    }

    @Test func numbers() {
        #expect(PayloadJSON.double(12).compactString == "12")
        #expect(PayloadJSON.double(2.5).compactString == "2.5")
        #expect(PayloadJSON.double(0.3167).compactString == "0.3167")
        #expect(PayloadJSON.double(-0.5).compactString == "-0.5")
        #expect(PayloadJSON.int(-3).compactString == "-3")
    }

    @Test func escaping() throws {
        let s = "quote \" backslash \\ newline \n tab \t bell \u{07} é 🎉"
        let text = PayloadJSON.string(s).compactString
        #expect(text == #""quote \" backslash \\ newline \n tab \t bell \u0007 é 🎉""#)
        // Valid JSON that decodes back to the same string.
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as! [String]
        #expect(decoded == [s])
        // Bytes are UTF-8 bytes, not characters.
        #expect(PayloadJSON.string("é").compactByteCount == 4)
    }

    @Test func pretty() {
        let json = PayloadJSON.object(["a": .array([.int(1)]), "b": .object([:])])
        #expect(json.prettyString == "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}")
    }

    @Test func largestLeaf() {
        let json = PayloadJSON.object([
            "aps": .object(["alert": .string("short")]),
            "pm": .object([
                "a": .array([.object(["u": .string("https://a.example/long-long-long")]), .object(["u": .string("https://a.example/s")])])
            ]),
        ])
        let leaf = json.largestLeaf!
        #expect(leaf.path == "pm.a[0].u")
        #expect(leaf.bytes == #""u":"https://a.example/long-long-long""#.utf8.count)
        #expect(PayloadJSON.object([:]).largestLeaf == nil)
    }
}
