"""The reader core of overbrainer-contract, compiled (Rust: `core/` in its repository).

Use it through `overbrainer_contract` (its `reader` binds the core to the package's models
and errors); this package holds only the compiled module `_core` and its types.
"""

from . import _core

__all__ = ["_core"]
