"""Build the compiled per-row kernels at install (``pip install .``, ``pip install
-e .``): one C extension per module of ``sklearn_linsep/_kernels/*.pyx`` (Cython).
Everything else about the package is in pyproject.toml."""

import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNELS = Path("sklearn_linsep", "_kernels")

# -ffp-contract=off: GCC and clang would fuse a * b + c into one rounding (FMA) where
# the CPU has it, so that an epoch's weights depended on the machine; the kernels'
# numbers are those of plain IEEE multiplies and adds, as numba's were.
GCC_ARGS = ["-O3", "-ffp-contract=off"]
MSVC_ARGS = ["/O2", "/fp:precise"]  # MSVC contracts only under /fp:fast or /fp:contract

NO_COMPILER = (
    "sklearn-linsep compiles its per-row kernels (C, from Cython) at install, and "
    "no working C compiler was found: install one (gcc or clang; on Windows, the "
    "Microsoft C++ Build Tools) and run pip again."
)


class BuildKernels(build_ext):
    """``build_ext`` compiling the kernels in parallel, with the flags that keep
    their arithmetic exact, and one clear line where there is no C compiler."""

    def initialize_options(self):
        super().initialize_options()
        self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        arguments = MSVC_ARGS if self.compiler.compiler_type == "msvc" else GCC_ARGS
        for extension in self.extensions:
            extension.extra_compile_args = arguments
        try:
            super().build_extensions()
        except Exception as error:  # noqa: BLE001 - CompileError, a missing cc, ...
            if _compiler_works(self.compiler):
                raise
            raise SystemExit(NO_COMPILER) from error


def _compiler_works(compiler):
    """Whether ``compiler`` compiles an empty C file (the build failed otherwise)."""
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory, "empty.c")
        source.write_text("int main(void) { return 0; }\n")
        try:
            compiler.compile([str(source)], output_dir=directory)
        except Exception:  # noqa: BLE001
            return False
    return True


def kernel_extensions():
    return [
        Extension(
            f"sklearn_linsep._kernels.{source.stem}",
            [str(source)],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
        for source in sorted(KERNELS.glob("*.pyx"))
    ]


setup(ext_modules=kernel_extensions(), cmdclass={"build_ext": BuildKernels})
