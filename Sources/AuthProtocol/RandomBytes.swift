extension SystemRandomNumberGenerator {
    /// `count` bytes from the system's generator (getrandom on Linux): the one source of random
    /// secrets for client, server and command.
    public static func bytes(_ count: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }
}
