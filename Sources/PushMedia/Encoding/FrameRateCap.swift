/// Pure: which frames stay when an animation is capped at a frame rate. Time is cut into
/// slots of `1000 / maxFramesPerSecond` ms; the first frame starting in each slot is kept and
/// takes the delays of the frames after it that start in the same slot (merged), so the total
/// duration is unchanged and the mean rate is at most the cap (a 30 fps animation capped at 25
/// keeps seven frames of ten, not every other one).
enum FrameRateCap {
    /// (position of the kept frame, its new delay) for each kept frame.
    static func merge(delays: [Int], maxFramesPerSecond: Int) -> [(position: Int, delay: Int)] {
        let all = delays.enumerated().map { (position: $0.offset, delay: $0.element) }
        guard maxFramesPerSecond > 0, delays.count > 2 else { return all }
        let slot = max(1, 1000 / maxFramesPerSecond)
        var kept: [(position: Int, delay: Int)] = []
        var start = 0
        var lastSlot = -1
        for (position, delay) in delays.enumerated() {
            if start / slot > lastSlot || kept.isEmpty {
                kept.append((position, delay))
                lastSlot = start / slot
            } else {
                kept[kept.count - 1].delay += delay
            }
            start += delay
        }
        // Keep two frames, so the result is still an animation.
        return kept.count >= 2 ? kept : all
    }
}
