// SPDX-License-Identifier: Apache-2.0
// The EJSON parser on hostile shapes, for `scripts/bench parse`: a 1 MiB object of distinct
// keys against a 1 MiB array of the same values. A parser that scans earlier keys for each
// new one (a duplicate check) is quadratic on the first; the goal is a ratio of at most 2.
import AuthProtocol
import Dispatch
import Glibc

func body(keys: Bool, bytes: Int) -> [UInt8] {
    var out: [UInt8] = [keys ? UInt8(ascii: "{") : UInt8(ascii: "[")]
    var i = 0
    while out.count < bytes - 32 {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        if keys { out += Array("\"k\(i)\":".utf8) }
        out += Array("\"v\(i)\"".utf8)
        i += 1
    }
    out.append(keys ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    return out
}

/// Median seconds of `runs` parses.
func time(_ bytes: [UInt8], runs: Int) -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        guard (try? EJSON(parsing: bytes)) != nil else { fatalError("the bench body does not parse") }
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return samples.sorted()[samples.count / 2]
}

let size = 1 << 20
let object = body(keys: true, bytes: size), array = body(keys: false, bytes: size)
let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 21
_ = time(object, runs: 2)
_ = time(array, runs: 2)
let o = time(object, runs: runs), a = time(array, runs: runs)
/// `x` with two decimals.
func fixed(_ x: Double) -> String {
    let hundredths = Int((x * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}
print("parse 1 MiB: object of distinct keys \(fixed(o * 1e3)) ms, array \(fixed(a * 1e3)) ms (median of \(runs))")
print("parse ratio (object / array): \(fixed(o / a)) (goal: at most 2)")
