// SPDX-License-Identifier: Apache-2.0
/// ISO-8601 / RFC 3339 timestamps, as relaxed EJSON writes dates.
public enum ISODate {
    /// Milliseconds since the epoch for `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM|±HHMM|±HH]` (a space
    /// for the `T` too); nil otherwise.
    public static func parse(_ text: String) -> Int64? {
        let u = Array(text.utf8)
        var i = 0
        func number(_ n: Int) -> Int64? {
            guard i + n <= u.count else { return nil }
            var v: Int64 = 0
            for _ in 0..<n {
                let c = u[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
                i += 1
            }
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < u.count, u[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            i < u.count, u[i] == UInt8(ascii: "T") || u[i] == UInt8(ascii: "t") || u[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2) else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var millis: Int64 = 0
        if expect(".") {
            var digits = 0
            while i < u.count, u[i] >= 48 && u[i] <= 57 {
                if digits < 3 { millis = millis * 10 + Int64(u[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offset: Int64 = 0
        if expect("Z") || expect("z") {
        } else if i < u.count, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
            let sign: Int64 = u[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(2) else { return nil }
            // `±HH:MM`, `±HHMM`, or `±HH` alone (ISO 8601's, as PostgreSQL writes it).
            var om: Int64 = 0
            if expect(":") || i < u.count {
                guard let minutes = number(2) else { return nil }
                om = minutes
            }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == u.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return ((days * 86400 + hour * 3600 + minute * 60 + second) - offset) * 1000 + millis
    }

    /// `YYYY-MM-DDTHH:MM:SS.fffZ` for milliseconds since the epoch.
    public static func format(milliseconds ms: Int64) -> String {
        let (secs, millis) = ms.quotientAndRemainder(dividingBy: 1000)
        let s = millis < 0 ? secs - 1 : secs
        let m = millis < 0 ? millis + 1000 : millis
        var (days, rest) = s.quotientAndRemainder(dividingBy: 86400)
        var r = rest
        if r < 0 { days -= 1; r += 86400 }
        rest = r
        let (y, mo, d) = civilFromDays(days)
        func pad(_ v: Int64, _ n: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, n - t.count)) + t
        }
        return "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2)).\(pad(m, 3))Z"
    }

    // Howard Hinnant's civil calendar algorithms.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The civil date (year, month 1-12, day 1-31) of a day counted from 1970-01-01.
    public static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}
