// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Testing

/// Hashes brought from elsewhere are verified only when their cost is bounded: one with
/// gigabytes of memory or a bcrypt cost of 31 would let anyone who knows its email stall the
/// server's hashing threads with logins.
@Suite(.timeLimit(.minutes(5))) struct HashCostLimitTests {
    @Test func costsAreReadFromTheHash() {
        #expect(PasswordHasher.isWithinCostLimits(BcryptTests.hash))
        #expect(!PasswordHasher.isWithinCostLimits("$2b$15$YW0LQ.MIaLxGPN2Kg8/K8uSpH0AjYn9iBysgsh8POdlztMmGKHLV6"))
        #expect(PasswordHasher.isWithinCostLimits("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA"))
        #expect(PasswordHasher.isWithinCostLimits("$argon2id$v=19$m=262144,t=16,p=16$c2FsdHNhbHQ$aGFzaA"))
        for over in [
            "m=262145,t=1,p=1", "m=1024,t=17,p=1", "m=1024,t=1,p=17", "m=0,t=1,p=1", "m=1024,t=1", "m=1024,t=1,p=1,p=1",
            "m=1024,t=1,x=1", "m=99999999999999999999,t=1,p=1", "m=-1,t=1,p=1",
        ] {
            #expect(!PasswordHasher.isWithinCostLimits("$argon2id$v=19$\(over)$c2FsdHNhbHQ$aGFzaA"), "\(over)")
        }
        // Argon2i and Argon2d are read as Argon2id is (issue 50); another variant is none.
        #expect(PasswordHasher.isWithinCostLimits("$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA"))
        #expect(!PasswordHasher.isWithinCostLimits("$argon2d$v=19$m=1024,t=17,p=1$c2FsdHNhbHQ$aGFzaA"))
        #expect(!PasswordHasher.isWithinCostLimits("$argon2x$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA"))
        #expect(!PasswordHasher.isWithinCostLimits("$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ"))
    }

    /// A hash over the limits is not verified, even with the right password (it could have
    /// cost gigabytes or hours); one with the server's own parameters is, whatever they are.
    @Test func aHashOverTheLimitsIsNeverVerified() async throws {
        // Cheap to make, yet over the limits (17 passes of 64 KiB).
        let over = PasswordHasher.Parameters(memoryKiB: 64, iterations: 17, parallelism: 1)
        let phc = try PasswordHasher.hashNow("pw", over)
        #expect(!PasswordHasher.isWithinCostLimits(phc) && PasswordHasher.verifyNow("pw", phc))
        #expect(try await PasswordHasher(parameters: .testing).verify("pw", against: phc) == false)
        #expect(try await PasswordHasher(parameters: over).verify("pw", against: phc), "the server's own parameters")
    }
}
