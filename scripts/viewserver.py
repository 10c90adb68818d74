"""Start `tracescope view --no-open TRACE` for a benchmark and find its port."""
import re, subprocess, sys


def start_view(binary, trace, *flags):
    """The server process and the port it listens on (exits if it fails to start)."""
    proc = subprocess.Popen([binary, "view", "--no-open", *flags, trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit("server exited: " + proc.stderr.read())
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if m:
            return proc, int(m.group(1))
