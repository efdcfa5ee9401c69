"""The optional compiled kernel of the Rallyman GT and DIRT solvers (sheetgen/games/rallyman/_kernel.c).

pyproject.toml holds the project's metadata; this file only declares the C extension. It is
optional: where it cannot be built (no C compiler or no Python headers) the install goes on
without it and sheetgen runs the pure-Python solvers, which give the same figures.

The kernel repeats the reference's float arithmetic in the same order, so it is compiled
without contraction into fused multiply-adds and without fast-math (-O2 -ffp-contract=off);
on 32-bit x86 the SSE2 unit is asked for, so that no intermediate is kept in x87's longer
registers. The SHA-256 of the C source is compiled in (`_kernel.SOURCE_SHA256`): the wrapper
(sheetgen/games/rallyman/accel.py) uses a build only when it matches the source it names.
"""

import hashlib
import platform
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path("sheetgen") / "games" / "rallyman" / "_kernel.c"


class BuildExt(build_ext):
    """The compiler's flags for exact IEEE arithmetic, per compiler."""

    def build_extensions(self):
        if self.compiler.compiler_type == "msvc":
            flags = ["/O2", "/fp:precise"]
        else:
            flags = ["-O2", "-ffp-contract=off", "-fno-fast-math"]
            if platform.machine().lower() in ("i386", "i486", "i586", "i686", "x86"):
                flags += ["-msse2", "-mfpmath=sse"]
        for ext in self.extensions:
            ext.extra_compile_args = flags + list(ext.extra_compile_args or [])
        super().build_extensions()


def digest() -> str:
    return hashlib.sha256((Path(__file__).resolve().parent / SOURCE).read_bytes()).hexdigest()


setup(
    ext_modules=[
        Extension(
            "sheetgen.games.rallyman._kernel",
            sources=[str(SOURCE)],
            define_macros=[("KERNEL_SOURCE_SHA256", f'"{digest()}"')],
            optional=True,
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
