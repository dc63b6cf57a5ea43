"""What the benchmarks print about the machine they ran on (its load, for noisy timings)."""
import os
import subprocess


def uptime():
    """``uptime``'s line (time, load averages), or the load averages alone without it."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        try:
            return f"load average {os.getloadavg()}"
        except OSError:
            return "load average unavailable"
