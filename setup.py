"""Build hpcbench._core, the C extension, with the MPI compiler wrapper, and
libhpcbdegr, the plain C library of the network degradation API.

pyproject.toml holds the package metadata; this file only builds C. Nothing
here runs unless something is compiled, so making an sdist needs neither MPI
nor hwloc. What the build looks for, in order (docs/install.md):

- MPI: $MPICC if set, else `mpicc` on PATH (as mpi4py does), for compiling
  and linking.
- hwloc: $HWLOC_DIR if set (its include/ and lib/, with an rpath to lib/, as
  h5py's HDF5_DIR), else pkg-config.
- NumPy's and mpi4py's headers, from the build environment.

Whatever is missing is one line naming what to install, not a traceback.
Set HPCB_SANITIZE=1 for an AddressSanitizer + UndefinedBehaviorSanitizer
build (see tools/sanitize.sh) and HPCB_CFLAGS for extra compiler flags.
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCES = [
    # csrc/python: the only files that include Python.h
    "csrc/python/module.c",
    "csrc/python/glue.c",
    "csrc/python/topology.c",
    "csrc/python/node_kernels.c",
    "csrc/python/cache_kernels.c",
    "csrc/python/comm_kernels.c",
    "csrc/python/micro_kernels.c",
    "csrc/python/stream_kernels.c",
    "csrc/python/bandwidth_kernels.c",
    "csrc/python/flops_kernels.c",
    "csrc/python/numa_kernels.c",
    "csrc/python/multibsp_kernels.c",
    "csrc/python/matrix_kernels.c",
    "csrc/python/predict_kernels.c",
    # csrc/kernels: timed kernels, plain C and MPI
    "csrc/kernels/cycle.c",
    "csrc/kernels/traverse.c",
    "csrc/kernels/chase.c",
    "csrc/kernels/load.c",
    "csrc/kernels/copy.c",
    "csrc/kernels/daxpy.c",
    "csrc/kernels/stream.c",
    "csrc/kernels/bandwidth.c",
    "csrc/kernels/flops.c",
    "csrc/kernels/numa.c",
    "csrc/kernels/comm.c",
    "csrc/kernels/msgbuf.c",
    "csrc/kernels/barrier.c",
    "csrc/kernels/p2p.c",
    "csrc/kernels/collective.c",
    "csrc/kernels/overlap.c",
    "csrc/kernels/contention.c",
    "csrc/kernels/shift.c",
    "csrc/kernels/flow.c",
    "csrc/kernels/micro.c",
    "csrc/kernels/micro_p2p.c",
    "csrc/kernels/micro_coll.c",
    "csrc/kernels/micro_rma.c",
    "csrc/kernels/multibsp.c",
    "csrc/kernels/matrix.c",
    "csrc/kernels/matrix_verify.c",
    "csrc/kernels/wavefront_solve.c",
    "csrc/kernels/wavefront_wg.c",
    "csrc/kernels/wavefront.c",
    # csrc/runtime: status codes, rules, timer, hwloc, teams, memory
    "csrc/runtime/status.c",
    "csrc/runtime/why.c",
    "csrc/runtime/timer.c",
    "csrc/runtime/memory.c",
    "csrc/runtime/placement.c",
    "csrc/runtime/topo.c",
    "csrc/runtime/team.c",
    "csrc/runtime/phase.c",
]
# libhpcbdegr: plain C, no Python, no MPI; applications link it (hpcbench config --cflags --libs).
# degr.c reads the degradation file, params.c and params_get.c the parameters file; text.c is their lexer.
DEGR_SOURCES = ["csrc/degr/text.c", "csrc/degr/degr.c", "csrc/degr/params.c", "csrc/degr/params_get.c"]
#: What travels with the library: the C headers and the Fortran module's source.
DEGR_HEADERS = ["hpcb_degr.h", "hpcb_params.h", "hpcb_params.f90"]
DEGR_INCLUDE = "hpcbench/include"
DEPENDS = [os.path.join(root, f) for root, _, files in os.walk("csrc") for f in files if f.endswith(".h")]

# What to install, said once for every message that needs it.
INSTALL_MPI = ("Debian: apt-get install openmpi-bin libopenmpi-dev; elsewhere: Open MPI or MPICH with its "
               "development files, e.g. `module load openmpi`")
INSTALL_HWLOC = ("Debian: apt-get install pkg-config libhwloc-dev; elsewhere: hwloc 2 with its headers, "
                 "then PKG_CONFIG_PATH=PREFIX/lib/pkgconfig or HWLOC_DIR=PREFIX")


def fail(message):
    """Stop the build with one line on stderr (pip shows it; no traceback)."""
    sys.stderr.write(f"hpcbench build: error: {message}\n")
    raise SystemExit(1)


def mpi_compiler():
    """The MPI compiler wrapper as an argv list: $MPICC, else mpicc on PATH."""
    wrapper = os.environ.get("MPICC") or shutil.which("mpicc")
    if not wrapper:
        fail(f"no MPI compiler wrapper (mpicc): install MPI ({INSTALL_MPI}) or set MPICC to its C compiler wrapper")
    argv = shlex.split(wrapper)
    if shutil.which(argv[0]) is None:
        fail(f"MPICC={wrapper} is not a command here: set MPICC to your MPI's C compiler wrapper ({INSTALL_MPI})")
    return argv


def first_message(output):
    """The first line of a compiler's complaint that says something (Open MPI frames its own in dashes)."""
    for line in output.splitlines():
        line = line.strip()
        if line and not line.startswith("-"):
            return line
    return "no message"


def check_mpi_compiles(wrapper):
    """Compile a file that includes mpi.h, so that a wrapper without its C
    compiler or without MPI's headers is one line before the real build."""
    with tempfile.TemporaryDirectory(prefix="hpcbench-probe-") as tmp:
        probe = os.path.join(tmp, "probe.c")
        with open(probe, "w") as f:
            f.write("#include <mpi.h>\nint main(void) { return MPI_VERSION > 0 ? 0 : 1; }\n")
        try:
            run = subprocess.run([*wrapper, "-c", probe, "-o", os.path.join(tmp, "probe.o")],
                                 capture_output=True, text=True)
        except OSError as e:
            fail(f"{' '.join(wrapper)} does not run ({e.strerror}): {INSTALL_MPI}")
        if run.returncode != 0:
            fail(f"{' '.join(wrapper)} cannot compile a C file that includes mpi.h "
                 f"({first_message(run.stderr + run.stdout)}): install a C compiler and MPI's development files "
                 f"(Debian: apt-get install gcc libopenmpi-dev; elsewhere: gcc or your site's compiler module) "
                 f"or set MPICC")


def check_python_headers():
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        fail(f"Python.h is not in {include}: install Python's development headers "
             f"(Debian: apt-get install python3-dev; elsewhere: your Python's -dev or -devel package)")


def hwloc_flags():
    """(compile flags, link flags) for hwloc: from $HWLOC_DIR, else pkg-config."""
    prefix = os.environ.get("HWLOC_DIR")
    if prefix:
        include, lib = os.path.join(prefix, "include"), os.path.join(prefix, "lib")
        if not os.path.isfile(os.path.join(include, "hwloc.h")):
            fail(f"HWLOC_DIR={prefix} has no include/hwloc.h: set HWLOC_DIR to the prefix hwloc was installed "
                 f"into (the directory holding include/ and lib/)")
        if not glob.glob(os.path.join(lib, "libhwloc.*")):
            fail(f"HWLOC_DIR={prefix} has no lib/libhwloc.*: set HWLOC_DIR to the prefix hwloc was installed "
                 f"into (the directory holding include/ and lib/)")
        print(f"hpcbench build: hwloc from HWLOC_DIR={prefix}")
        return [f"-I{include}"], [f"-L{lib}", "-lhwloc", f"-Wl,-rpath,{lib}"]
    if shutil.which("pkg-config") is None:
        fail(f"pkg-config is missing, and finds hwloc ({INSTALL_HWLOC})")
    flags = []
    for what in ("--cflags", "--libs"):
        try:
            out = subprocess.run(["pkg-config", what, "hwloc"], check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError:
            fail(f"pkg-config cannot find hwloc ({INSTALL_HWLOC})")
        flags.append(shlex.split(out.stdout))
    return flags[0], flags[1]


def python_headers():
    """The include directories of NumPy and mpi4py, from the build environment."""
    try:
        import mpi4py
        import numpy
    except ImportError as e:
        fail(f"the build needs {e.name} (pip install numpy mpi4py, or build with pip's default build isolation)")
    return [numpy.get_include(), mpi4py.get_include()]


def c_string(text):
    """`text` as a C string literal for a -D macro (double quotes dropped, not escaped)."""
    return '"' + text.replace('"', "") + '"'


def configure(ext, hw_cflags, hw_libs):
    """Flags, macros and headers of hpcbench._core, found when it is built."""
    sanitize = os.environ.get("HPCB_SANITIZE") == "1"
    cflags = ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
              "-Wno-missing-field-initializers", "-fno-strict-aliasing"]
    ldflags = []
    if sanitize:
        san = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=undefined"]
        cflags = [f for f in cflags if f != "-O2"] + ["-O1", "-g"] + san
        ldflags += san
    cflags += shlex.split(os.environ.get("HPCB_CFLAGS", ""))
    wrapper = os.environ.get("MPICC") or "mpicc"
    ext.define_macros += [
        ("HPCB_BUILD_CC", c_string(wrapper)),
        ("HPCB_BUILD_CFLAGS", c_string(" ".join(cflags))),
        ("HPCB_SANITIZED", "1" if sanitize else "0"),
    ]
    ext.include_dirs += python_headers()   # csrc files include each other by relative path
    ext.extra_compile_args += cflags + hw_cflags
    ext.extra_link_args += ldflags + hw_libs + ["-lpthread"]


class MPIBuildExt(build_ext):
    """Swap the compiler and linker for the MPI wrapper, keeping Python's flags;
    then build libhpcbdegr, the plain C library applications link to read
    the network degradation figures (hpcbench/include/hpcb_degr.h)."""

    def run(self):
        super().run()
        self.build_degr_library()

    def build_degr_library(self):
        package_dir = os.path.dirname(self.get_ext_fullpath("hpcbench._core"))
        out = os.path.join(package_dir, "lib")
        os.makedirs(out, exist_ok=True)
        objects = self.compiler.compile(DEGR_SOURCES, output_dir=self.build_temp, include_dirs=[DEGR_INCLUDE],
                                        extra_postargs=["-std=c99", "-O2", "-fPIC", "-Wall", "-Wextra"])
        self.compiler.link_shared_object(objects, "libhpcbdegr.so", output_dir=out,
                                         extra_postargs=["-Wl,-soname,libhpcbdegr.so"])
        if not self.inplace:   # the header travels with the library
            include = os.path.join(package_dir, "include")
            os.makedirs(include, exist_ok=True)
            for name in DEGR_HEADERS:
                shutil.copy(os.path.join(DEGR_INCLUDE, name), include)
        print(f"hpcbench build: libhpcbdegr.so in {out}")

    def build_extensions(self):
        wrapper = mpi_compiler()
        check_python_headers()
        check_mpi_compiles(wrapper)
        hw_cflags, hw_libs = hwloc_flags()
        for ext in self.extensions:
            configure(ext, hw_cflags, hw_libs)
        print(f"hpcbench build: compiling and linking _core with {' '.join(wrapper)}")
        for name in ("compiler_so", "linker_so"):
            current = getattr(self.compiler, name)
            self.compiler.set_executable(name, wrapper + current[1:])
        super().build_extensions()


setup(ext_modules=[Extension("hpcbench._core", sources=SOURCES, depends=DEPENDS)],
      cmdclass={"build_ext": MPIBuildExt})
