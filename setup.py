"""The compiled part of the install: the TREC readers' scanner, ``evaluation/measures/trec_scan.c``.

Built into ``evaluation/measures/_trec_scan<suffix>.so`` (plain C, no Python headers; loaded by
``evaluation/measures/trec_scan.py`` through ctypes). A build that fails stops the install with
a message saying how to install without it: ``ASSESS_NO_C_SCANNER=1`` skips the extension, and
the readers then use their numpy scanner (``evaluation/measures/numpy_scan.py``), slower.
"""

import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = "evaluation/measures/trec_scan.c"
WITHOUT = "ASSESS_NO_C_SCANNER"


class BuildScanner(build_ext):
    """build_ext that names the way out when the compiler fails (setuptools' own message does not)."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:  # CompileError, LinkError, a missing compiler: all stop the install
            raise SystemExit(
                f"error: could not build {SOURCE} ({error}).\n"
                "Install a C compiler (Debian: apt-get install gcc libc6-dev) and run the install again, or "
                f"install without the scanner: {WITHOUT}=1 pip install --no-deps -e . "
                "(run and qrels files are then read by numpy, more slowly: bench/README.md)"
            ) from None


# The source's hash, which the library returns (trec_source) and trec_scan.py checks at load.
version = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()[:16]
scanner = [] if os.environ.get(WITHOUT) else [
    Extension("evaluation.measures._trec_scan", [SOURCE], extra_compile_args=["-O2", "-std=c99"],
              define_macros=[("TREC_SCAN_SOURCE", f'"{version}"')])
]
setup(packages=[], ext_modules=scanner, cmdclass={"build_ext": BuildScanner})
