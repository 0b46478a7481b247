// SPDX-License-Identifier: Apache-2.0
import Glibc
import LuaShims
import Synchronization

/// The result of an async Swift call, handed to the Lua thread.
struct Completion: Sendable {
    let operation: LuaOperationID
    let result: Result<[LuaValue], any Error>
}

/// Completions from Swift Tasks, handed to the Lua thread: a locked list, and a pipe that
/// wakes the thread sleeping in `wait` (a kill writes to it too, through `authsh_set_wakefd`).
final class Inbox: Sendable {
    let items = Mutex<[Completion]>([])
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if authsh_pipe(&fds) != 0 {
            // No pipe (out of descriptors): `wait` polls the list every millisecond instead.
            fds = [-1, -1]
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    func post(_ completion: Completion) {
        let wasEmpty = items.withLock { items in
            items.append(completion)
            return items.count == 1
        }
        if wasEmpty && writeFD >= 0 { _ = Glibc.write(writeFD, "c", 1) }
    }

    func take() -> [Completion] {
        items.withLock { items in
            let all = items
            items.removeAll(keepingCapacity: true)
            return all
        }
    }

    /// Sleeps until a completion or a kill arrives.
    func wait() {
        if items.withLock({ !$0.isEmpty }) {
            authsh_drain(readFD)
            return
        }
        guard readFD >= 0 else {
            usleep(1000)
            return
        }
        var pfd = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, -1)
        authsh_drain(readFD)
    }
}
