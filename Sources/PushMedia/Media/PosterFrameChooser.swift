/// Brightness and contrast of one frame's luma (a small greyscale copy of it).
struct FrameStatistics: Equatable {
    /// Mean luma, 0…255.
    var mean: Double
    /// Standard deviation of luma: how much the frame shows.
    var deviation: Double

    init(mean: Double, deviation: Double) {
        self.mean = mean
        self.deviation = deviation
    }

    init(luma: [UInt8]) {
        guard !luma.isEmpty else {
            self.init(mean: 0, deviation: 0)
            return
        }
        var sum = 0.0
        var squares = 0.0
        for value in luma {
            let v = Double(value)
            sum += v
            squares += v * v
        }
        let n = Double(luma.count)
        let mean = sum / n
        self.init(mean: mean, deviation: (max(0, squares / n - mean * mean)).squareRoot())
    }
}

/// Pure: picks a movie's poster frame among sampled candidates, one at a time, keeping only the
/// best so far. A candidate that is black, white or flat never wins while a usable one exists;
/// among usable ones the most detailed wins, with a small preference for earlier frames, so a
/// fade-in's dim first frames lose to the picture they fade into.
struct PosterFrameChooser {
    /// Mean luma below this is black (video luma starts at 16).
    static let darkest = 28.0
    /// Mean luma above this is white.
    static let brightest = 235.0
    /// Luma deviation below this is a flat colour.
    static let flattest = 8.0
    /// How much of its score a candidate at the end of the window gives up (earlier is better).
    static let latenessPenalty = 0.2
    /// Seconds searched past the first usable frame: long enough for a fade-in to finish, short
    /// enough not to decode the whole window of a clip that shows its picture from the start.
    static let settleSeconds = 2.0

    /// Seconds in which candidates are taken.
    let window: Double
    private(set) var best: (time: Double, score: Double, usable: Bool)?
    /// When the first usable candidate was seen.
    private(set) var firstUsable: Double?

    init(window: Double) {
        self.window = max(window, 0.001)
    }

    static func isUsable(_ frame: FrameStatistics) -> Bool {
        frame.mean >= darkest && frame.mean <= brightest && frame.deviation >= flattest
    }

    func score(_ frame: FrameStatistics, at time: Double) -> Double {
        frame.deviation * (1 - Self.latenessPenalty * min(1, max(0, time / window)))
    }

    /// Offers the candidate at `time`; true when it is the best so far (keep its pixels).
    mutating func offer(_ frame: FrameStatistics, at time: Double) -> Bool {
        let usable = Self.isUsable(frame)
        if usable, firstUsable == nil { firstUsable = time }
        let score = score(frame, at: time)
        let wins: Bool =
            switch best {
            case nil: true
            case let current?:
                usable && !current.usable ? true : usable == current.usable && score > current.score
            }
        if wins { best = (time, score, usable) }
        return wins
    }

    /// True once the search may stop before the window ends: ``settleSeconds`` past the first
    /// usable candidate.
    func isSettled(at time: Double) -> Bool {
        guard let firstUsable else { return false }
        return time > firstUsable + Self.settleSeconds
    }

    /// True when the chosen frame is black, white or flat (nothing better was found).
    var choseBlank: Bool { best.map { !$0.usable } ?? true }
}
