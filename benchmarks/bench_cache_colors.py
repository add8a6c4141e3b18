"""Evidence for the cache issue: does this machine's L2 follow the page
colours the OS sees? (Run as root: /proc/self/pagemap gives frame numbers.)

    sudo python benchmarks/bench_cache_colors.py

Compiles benchmarks/peers/page_colors.c and times a pointer chase through
pages that all share one colour (frame number mod 32, the L2's 32 page
colours if it were indexed by these frames) and through pages with colours
spread evenly. Prints ticks per access per page count. Nothing is asserted.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if os.geteuid() != 0:
        sys.exit("bench_cache_colors.py needs root to read physical frame numbers")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "page_colors")
        subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "peers", "page_colors.c")], check=True)
        for mode, counts in ((0, [4, 8, 9, 16, 32, 64]), (1, [64, 128, 256, 288, 320])):
            for n in counts:
                print(subprocess.run([exe, "32", str(mode), str(n)], capture_output=True, text=True).stdout.strip(),
                      flush=True)


if __name__ == "__main__":
    main()
