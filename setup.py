"""Build hpcbench._core, the C extension, with the MPI compiler wrapper.

pyproject.toml holds the package metadata; this file only builds the
extension. Compiler: $MPICC if set, else `mpicc` on PATH, for compiling and
linking. hwloc comes from pkg-config. Set HPCB_SANITIZE=1 for an
AddressSanitizer + UndefinedBehaviorSanitizer build (see tools/sanitize.sh).
"""
import os
import shlex
import shutil
import subprocess
import sys

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
    "csrc/kernels/comm.c",
    "csrc/kernels/msgbuf.c",
    "csrc/kernels/barrier.c",
    "csrc/kernels/p2p.c",
    "csrc/kernels/collective.c",
    "csrc/kernels/overlap.c",
    "csrc/kernels/contention.c",
    "csrc/kernels/shift.c",
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
DEPENDS = [os.path.join(root, f) for root, _, files in os.walk("csrc") for f in files if f.endswith(".h")]


def fail(message):
    sys.stderr.write(f"hpcbench build: error: {message}\n")
    raise SystemExit(1)


def mpi_compiler():
    wrapper = os.environ.get("MPICC") or shutil.which("mpicc")
    if not wrapper:
        fail("no MPI compiler wrapper: set MPICC or install Open MPI or MPICH (Debian: openmpi-bin libopenmpi-dev)")
    return shlex.split(wrapper)


def pkg_config(*args):
    if shutil.which("pkg-config") is None:
        fail("pkg-config is missing (Debian: apt-get install pkg-config)")
    try:
        out = subprocess.run(["pkg-config", *args, "hwloc"], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError:
        fail("pkg-config cannot find hwloc (Debian: apt-get install libhwloc-dev)")
    return shlex.split(out.stdout)


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
        objects = self.compiler.compile(["csrc/degr/degr.c"], output_dir=self.build_temp,
                                        include_dirs=["hpcbench/include"],
                                        extra_postargs=["-std=c99", "-O2", "-fPIC", "-Wall", "-Wextra"])
        self.compiler.link_shared_object(objects, "libhpcbdegr.so", output_dir=out,
                                         extra_postargs=["-Wl,-soname,libhpcbdegr.so"])
        if not self.inplace:   # the header travels with the library
            include = os.path.join(package_dir, "include")
            os.makedirs(include, exist_ok=True)
            shutil.copy("hpcbench/include/hpcb_degr.h", include)
        print(f"hpcbench build: libhpcbdegr.so in {out}")

    def build_extensions(self):
        wrapper = mpi_compiler()
        print(f"hpcbench build: compiling and linking _core with {' '.join(wrapper)}")
        for name in ("compiler_so", "linker_so"):
            current = getattr(self.compiler, name)
            self.compiler.set_executable(name, wrapper + current[1:])
        super().build_extensions()


def extension():
    import mpi4py
    import numpy

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
    macros = [
        ("HPCB_BUILD_CC", '"%s"' % wrapper.replace('"', "")),
        ("HPCB_BUILD_CFLAGS", '"%s"' % " ".join(cflags).replace('"', "")),
        ("HPCB_SANITIZED", "1" if sanitize else "0"),
    ]
    hw_cflags = pkg_config("--cflags")
    hw_libs = pkg_config("--libs")
    return Extension(
        "hpcbench._core",
        sources=SOURCES,
        depends=DEPENDS,
        include_dirs=[numpy.get_include(), mpi4py.get_include()],   # csrc files include each other by relative path
        define_macros=macros,
        extra_compile_args=cflags + hw_cflags,
        extra_link_args=ldflags + hw_libs + ["-lpthread"],
    )


setup(ext_modules=[extension()], cmdclass={"build_ext": MPIBuildExt})
