// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

extension LuaState {
    /// Installs the process's SIGINT handler: while a state has `interruptOnSIGINT(true)`,
    /// Ctrl-C stops its running code with "interrupted!" (a kill pcall cannot swallow).
    public static func installInterruptHandler() { _ = authsh_install_sigint() }

    /// Routes SIGINT to this state's running code (true) or nowhere (false).
    public func interruptOnSIGINT(_ on: Bool) {
        authsh_drain(authsh_interrupt_fd())
        authsh_interrupt_target(on ? L : nil)
    }

    /// An fd that becomes readable when SIGINT arrives (for a line editor's poll loop).
    public static var interruptFD: Int32 { authsh_interrupt_fd() }

    /// Empties the interrupt fd.
    public static func drainInterrupts() { authsh_drain(authsh_interrupt_fd()) }
}
