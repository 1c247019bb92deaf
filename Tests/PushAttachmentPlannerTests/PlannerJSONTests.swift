import Foundation
import PushAttachmentPlanner
import Testing

@Suite("Planner: userInfo conversion")
struct PlannerJSONTests {
    @Test func swiftAndFoundationValues() {
        let value = PlannerJSON(
            any: [
                "s": "x", "i": 3, "d": 0.5, "b": true, "nb": NSNumber(value: false), "nn": NSNumber(value: 1),
                "null": NSNull(), "a": [1, "y"], "o": ["k": 2] as [String: Any],
            ] as [String: Any])
        #expect(
            value
                == .object([
                    "s": .string("x"), "i": .number(3), "d": .number(0.5), "b": .bool(true), "nb": .bool(false), "nn": .number(1),
                    "null": .null, "a": .array([.number(1), .string("y")]), "o": .object(["k": .number(2)]),
                ]))
    }

    @Test func jsonSerializationBooleansStayBooleans() throws {
        let any = try JSONSerialization.jsonObject(with: Data(#"{"t":true,"one":1,"half":0.5}"#.utf8))
        #expect(PlannerJSON(any: any) == .object(["t": .bool(true), "one": .number(1), "half": .number(0.5)]))
        #expect(try PlannerJSON(jsonData: Data(#"{"t":true,"one":1,"half":0.5}"#.utf8)) == PlannerJSON(any: any))
    }

    @Test func oddValues() {
        let date = Date(timeIntervalSince1970: 0)
        let value = PlannerJSON(any: [AnyHashable(1): "int key", AnyHashable("d"): date, AnyHashable("data"): Data([1])] as [AnyHashable: Any])
        guard case .object(let members) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(members.count == 2) // the Int key is skipped
        #expect(members["d"]?.typeName.contains("Date") == true)
        #expect(members["data"].map { if case .unsupported = $0 { true } else { false } } == true)
    }

    @Test func deepNestingIsCut() {
        var value: Any = "leaf"
        for _ in 0..<100 { value = ["k": value] }
        var node = PlannerJSON(any: value)
        var depth = 0
        while case .object(let m) = node, let next = m["k"] {
            node = next
            depth += 1
        }
        #expect(depth == PlannerJSON.maxDepth + 1)
        #expect(node == .unsupported("nesting deeper than \(PlannerJSON.maxDepth)"))
    }
}
