"""Bit tricks numba lacks: a population count that compiles to one instruction."""

from __future__ import annotations

from typing import Any

from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx: Any, value: Any) -> Any:
    """Number of set bits of a ``uint64`` (LLVM ``ctpop``, ``popcnt`` on x86)."""
    if value != types.uint64:
        return None
    signature = types.uint64(types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return signature, codegen
