/// The commands' exit statuses (sysexits for usage).
public enum ExitStatus {
    /// A runtime failure.
    public static let failure: Int32 = 1
    /// Bad usage (sysexits EX_USAGE).
    public static let usage: Int32 = 64
}
