extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
