// SPDX-License-Identifier: Apache-2.0
/// Something that registers globals and modules in a state before any chunk runs (the
/// executable installs its libraries this way; the auth bindings plug in the same way).
public protocol LuaLibrary {
    func install(into state: LuaState) throws
}
