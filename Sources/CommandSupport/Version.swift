// SPDX-License-Identifier: Apache-2.0
/// authsh's version, shared by `authsh` and `authsh-server`.
public enum Version {
    /// The release number.
    public static let number = "0.1.0"
    /// `commit abc123def456`: where this build came from (``BuildInfo``).
    public static var commit: String { "commit \(BuildInfo.commit)" }
}
