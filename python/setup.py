"""pip install ./python (add --no-build-isolation where PyPI cannot be reached): configures and
builds the whole repository with CMake (KISHMEM_BUILD_DIR reuses a build tree; KISHMEM_CMAKE_ARGS
adds configure arguments, e.g. -DKISHMEM_ENABLE_CUDA=OFF), then installs the package with its
libraries (libkishmem, libkishmem_ep, libkishmem_mpi) bundled in kishmem/_libs, found through the
extension's run path."""
import os
import shlex
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CMakeBuild(build_ext):
    def run(self):
        build = os.environ.get("KISHMEM_BUILD_DIR") or os.path.join(self.build_temp, "cmake")
        stage = tempfile.mkdtemp(prefix="kishmem-stage-")
        pkg = os.path.join(stage, "pkg")
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DKISHMEM_BUILD_TESTS=OFF",
                               f"-DPython3_EXECUTABLE={sys.executable}", f"-DCMAKE_INSTALL_PREFIX={stage}",
                               f"-DKISHMEM_PYTHON_INSTALL_DIR={pkg}", f"-DCMAKE_INSTALL_LIBDIR={pkg}/kishmem/_libs"]
                              + shlex.split(os.environ.get("KISHMEM_CMAKE_ARGS", "")))
        subprocess.check_call(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)])
        subprocess.check_call(["cmake", "--install", build])
        out = os.path.join(os.path.abspath(self.build_lib), "kishmem")
        subprocess.check_call(["cp", "-a", os.path.join(pkg, "kishmem", "."), out])


setup(
    name="kishmem",
    version="0.1.0",
    description="kishmem (OpenSHMEM for GPU clusters) from Python, with kishmem.ep (DeepEP's low-latency API)",
    packages=["kishmem"],
    ext_modules=[Extension("kishmem._kishmem", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
)
