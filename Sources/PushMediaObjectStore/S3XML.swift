import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The few things read from S3's XML answers, by element path (`Error/Code`,
/// `ListBucketResult/Contents/Key`…), parsed with Foundation's `XMLParser`.
struct S3XML {
    /// Text of every leaf element in document order, with its path from the root.
    private(set) var leaves: [(path: String, text: String)] = []

    init(_ data: Data) {
        let delegate = Collector()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        _ = parser.parse()
        leaves = delegate.leaves
    }

    /// The first leaf at `path`.
    func value(_ path: String) -> String? {
        leaves.first { $0.path == path }?.text
    }

    /// The values at `path`, in order.
    func values(_ path: String) -> [String] {
        leaves.filter { $0.path == path }.map(\.text)
    }

    /// The root element's name (`Error` for an error document).
    var root: String? {
        leaves.first.map { String($0.path.split(separator: "/").first ?? "") }
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var leaves: [(path: String, text: String)] = []
        private var stack: [String] = []
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            stack.append(name)
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let path = stack.joined(separator: "/")
            if leaves.last?.path.hasPrefix(path + "/") != true { leaves.append((path, text)) }
            stack.removeLast()
            text = ""
        }
    }
}
