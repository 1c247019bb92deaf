// Bounded summaries of a stream of items, for the summary page of a paged preview
// (PreviewBook): the best K by a score, the distinct files to host, an evenly spread sample.
// Each holds at most a fixed number of elements, whatever the number of items.

import PushMediaModel

/// The `capacity` best elements offered, by `isBetter` (a strict weak order: ties must be
/// broken by the caller for a deterministic result). A binary heap whose root is the worst
/// element kept, so an offer costs O(log capacity).
struct TopK<Element> {
    let capacity: Int
    let isBetter: (Element, Element) -> Bool
    private(set) var heap: [Element] = []

    init(capacity: Int, isBetter: @escaping (Element, Element) -> Bool) {
        self.capacity = max(0, capacity)
        self.isBetter = isBetter
    }

    var count: Int { heap.count }
    /// The worst element kept (the next to go).
    var worst: Element? { heap.first }
    /// The elements kept, best first.
    var sorted: [Element] { heap.sorted(by: isBetter) }

    /// Offers `element`. Returns the element that is not kept: the worst one it replaced, or
    /// `element` itself when it is not better than all it would compete with; nil when it was
    /// kept and nothing had to go.
    @discardableResult
    mutating func offer(_ element: Element) -> Element? {
        if heap.count < capacity {
            heap.append(element)
            siftUp(heap.count - 1)
            return nil
        }
        guard let root = heap.first, isBetter(element, root) else { return element }
        heap[0] = element
        siftDown(0)
        return root
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard isBetter(heap[parent], heap[i]) else { return }
            heap.swapAt(parent, i)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let left = 2 * i + 1
            let right = left + 1
            var worst = i
            if left < heap.count, isBetter(heap[worst], heap[left]) { worst = left }
            if right < heap.count, isBetter(heap[worst], heap[right]) { worst = right }
            if worst == i { return }
            heap.swapAt(i, worst)
            i = worst
        }
    }
}

/// The distinct files among the attachments, counted in bounded memory.
///
/// Output files are content-addressed, so items with identical outputs share one file and it
/// is hosted once. Counting them exactly needs every name; this keeps the `capacity` smallest
/// 64-bit hashes of the names (a bottom-k sketch). While there are at most `capacity` distinct
/// names the count and bytes are exact. Beyond, the number of distinct names is estimated as
/// `(capacity − 1) ÷ (the largest kept hash ÷ 2⁶⁴)`, and their bytes as that number times the
/// mean size of the kept files: a uniform sample of the distinct files, so the relative error is
/// about `1 ÷ √capacity` (1.6 % at 4,096).
struct DistinctFiles {
    static let defaultCapacity = 4096

    private var kept: TopK<(hash: UInt64, bytes: Int)>
    private var hashes: Set<UInt64> = []
    /// True once a name had to be dropped: the counts are estimates from then on.
    private(set) var isEstimate = false
    /// Bytes of every attachment, each time it occurs (what the items reference, before sharing).
    private(set) var attachmentBytes = 0
    /// Attachments seen, each time it occurs.
    private(set) var attachments = 0

    init(capacity: Int = DistinctFiles.defaultCapacity) {
        kept = TopK(capacity: max(2, capacity)) { $0.hash < $1.hash }
    }

    mutating func add(file: String, bytes: Int) {
        attachments += 1
        attachmentBytes = attachmentBytes.addingSaturated(bytes)
        let hash = Self.hash(file)
        guard !hashes.contains(hash) else { return }
        if let dropped = kept.offer((hash, bytes)) {
            isEstimate = true
            if dropped.hash == hash { return }
            hashes.remove(dropped.hash)
        }
        hashes.insert(hash)
    }

    /// The number of distinct files: exact unless ``isEstimate``.
    var files: Int {
        guard isEstimate, let largest = kept.worst?.hash else { return kept.count }
        let fraction = (Double(largest) + 1) / 18_446_744_073_709_551_616.0 // 2^64
        return Int(saturating: Double(kept.count - 1) / fraction)
    }

    /// The bytes of the distinct files: exact unless ``isEstimate``.
    var bytes: Int {
        let keptBytes = kept.heap.reduce(0) { $0.addingSaturated($1.bytes) }
        guard isEstimate, kept.count > 0 else { return keptBytes }
        return Int(saturating: Double(files) * Double(keptBytes) / Double(kept.count))
    }

    /// FNV-1a over the name's UTF-8, then SplitMix64's finaliser to spread the bits.
    static func hash(_ name: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return h ^ (h >> 31)
    }
}

/// An evenly spread sample of a stream of unknown length, deterministic: keeps every
/// `stride`-th element (the 1st, the `stride + 1`-th…); when `capacity` are kept, drops every
/// other one and doubles the stride. So at any time it holds between `capacity ÷ 2` and
/// `capacity` elements spread over the whole stream seen so far (or all of a short stream).
struct EvenSample<Element> {
    let capacity: Int
    private(set) var stride = 1
    private(set) var kept: [Element] = []
    private var seen = 0

    init(capacity: Int) {
        self.capacity = max(2, capacity + capacity % 2)
    }

    /// Offers the next element of the stream; `make` runs only when it is kept.
    mutating func offer(_ make: () -> Element) {
        defer { seen += 1 }
        guard seen % stride == 0 else { return }
        kept.append(make())
        if kept.count == capacity {
            kept = kept.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            stride *= 2
        }
    }

    /// `count` of the kept elements, spread evenly over them (all when there are no more).
    func pick(_ count: Int) -> [Element] {
        guard kept.count > count else { return kept }
        return (0..<count).map { kept[$0 * kept.count / count] }
    }
}
