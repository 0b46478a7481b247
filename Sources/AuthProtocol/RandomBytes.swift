// SPDX-License-Identifier: Apache-2.0
extension SystemRandomNumberGenerator {
    /// `count` bytes from the system's generator (getrandom on Linux): the one source of random
    /// secrets for client, server and command. Taken 8 at a time: each of the generator's
    /// values is a system call, and a byte at a time made a 32-byte secret cost 32 of them.
    public static func bytes(_ count: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        var result = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = rng.next()
            for _ in 0..<min(8, count - index) {
                result[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return result
    }
}
