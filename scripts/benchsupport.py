# SPDX-License-Identifier: Apache-2.0
"""What the Python benchmarks (scripts/soak, scripts/bench-scale) share: free ports, a private
PostgreSQL cluster, a started server's address, and wrk's report read into numbers."""
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, token=None):
    """A JSON request; its JSON answer ({} when empty). An answer other than 2xx raises."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as reply:
        text = reply.read()
        return json.loads(text) if text else {}


def wait_for(path, pattern, process, errors, seconds=60):
    """The first group of `pattern` once it appears in the file at `path`; exits naming the
    server's errors if the process ends or the time runs out first."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            m = re.search(pattern, open(path).read())
            if m:
                return m.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit(f"the server did not start: {open(errors).read()[-2000:]}")


def milliseconds(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[m.group(2)]


def wrk_report(out):
    """wrk --latency's report as numbers: requests a second, requests, p50, p90 and p99 in ms,
    and the requests that failed (not 2xx or 3xx, or a socket error)."""
    failed = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {
        "rate": float(re.search(r"Requests/sec:\s*([\d.]+)", out).group(1)),
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "p50": milliseconds(re.search(r"^\s*50%\s+(\S+)", out, re.M).group(1)),
        "p90": milliseconds(re.search(r"^\s*90%\s+(\S+)", out, re.M).group(1)),
        "p99": milliseconds(re.search(r"^\s*99%\s+(\S+)", out, re.M).group(1)),
        "failed": (int(failed.group(1)) if failed else 0) + (sum(map(int, errors.groups())) if errors else 0),
    }


class PrivatePostgres:
    """A PostgreSQL cluster of its own in `directory` (the newest server binaries installed),
    reached through a Unix socket only, one database `name`; `settings` are extra `-c` options."""

    def __init__(self, directory, name, settings=()):
        self.pgbin = sorted(
            (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")),
            key=lambda p: [int(x) for x in re.findall(r"\d+", p)],
        )[-1]
        self.dir, self.name, self.port = directory, name, free_port()
        os.makedirs(directory)
        # PostgreSQL's user owns its own directory only; it needs to pass through the parent.
        os.chmod(os.path.dirname(directory), 0o755)
        self.runas = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(directory, "postgres")
        subprocess.run(self.runas + [f"{self.pgbin}/initdb", "-D", f"{directory}/data", "-A", "trust", "-U", "authsh", "-E",
                                     "UTF8", "--no-locale"], check=True, stdout=subprocess.DEVNULL)
        options = f"-k {directory} -p {self.port} -c listen_addresses='' -c max_connections=100"
        options += "".join(f" -c {s}" for s in settings)
        subprocess.run(self.runas + [f"{self.pgbin}/pg_ctl", "-D", f"{directory}/data", "-l", self.log, "-w", "-t", "60", "-o",
                                     options, "start"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([f"{self.pgbin}/createdb", "-h", directory, "-p", str(self.port), "-U", "authsh", name], check=True)

    @property
    def log(self):
        return os.path.join(self.dir, "log")

    @property
    def url(self):
        return f"postgres://authsh@:{self.port}/{self.name}?host={self.dir}"

    def query(self, sql):
        """The rows of `sql`, each a list of its columns as text."""
        out = subprocess.run(["psql", "-h", self.dir, "-p", str(self.port), "-U", "authsh", "-At", "-F", "\t", "-c", sql,
                              self.name], capture_output=True, text=True, check=True).stdout
        return [line.split("\t") for line in out.splitlines()]

    def stop(self):
        subprocess.run(self.runas + [f"{self.pgbin}/pg_ctl", "-D", f"{self.dir}/data", "-m", "fast", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
