"""The optional compiled kernels of the exact solvers: Rallyman GT's and DIRT's
(sheetgen/games/rallyman/_kernel.c) and Rally Risk's (sheetgen/games/rally_risk/_kernel.c).

pyproject.toml holds the project's metadata; this file only declares the C extensions. They
are optional: where they cannot be built (no C compiler or no Python headers) the install goes
on without them and sheetgen runs the pure-Python solvers, which give the same figures.

The kernel repeats the reference's float arithmetic in the same order, so it is compiled
without contraction into fused multiply-adds and without fast-math (-O2 -ffp-contract=off);
on 32-bit x86 the SSE2 unit is asked for, so that no intermediate is kept in x87's longer
registers. The SHA-256 of the C source is compiled in (`_kernel.SOURCE_SHA256`): the wrappers
(the games' accel.py) use a build only when it matches the source they name.
"""

import hashlib
import platform
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: (the extension's module, its C source)
KERNELS = (
    ("sheetgen.games.rallyman._kernel", Path("sheetgen") / "games" / "rallyman" / "_kernel.c"),
    ("sheetgen.games.rally_risk._kernel", Path("sheetgen") / "games" / "rally_risk" / "_kernel.c"),
)


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


def digest(source: Path) -> str:
    return hashlib.sha256((Path(__file__).resolve().parent / source).read_bytes()).hexdigest()


setup(
    ext_modules=[
        Extension(
            name,
            sources=[str(source)],
            define_macros=[("KERNEL_SOURCE_SHA256", f'"{digest(source)}"')],
            optional=True,
        )
        for name, source in KERNELS
    ],
    cmdclass={"build_ext": BuildExt},
)
