// SPDX-License-Identifier: Apache-2.0
/// The commands' exit statuses (sysexits for usage).
public enum ExitStatus {
    /// A runtime failure.
    public static let failure: Int32 = 1
    /// Bad usage (sysexits EX_USAGE).
    public static let usage: Int32 = 64
    /// The system lacks what the command needs (sysexits EX_OSERR), such as /proc.
    public static let system: Int32 = 71
}
