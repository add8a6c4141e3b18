import sys

# Ctrl-C while the interpreter is still importing hpcbench (NumPy, mpi4py and
# the extension take a second or more on a busy machine) is one line too, as
# it is once main() is running.
try:
    from .cli import main
except KeyboardInterrupt:
    print("hpcbench: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
