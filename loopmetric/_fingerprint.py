"""Short stable fingerprints: a keyed BLAKE2b of the parts, 16 hex characters.

Identical across processes, machines and `PYTHONHASHSEED` values (Python's
`hash` is none of these). A fingerprint names a call or a text without quoting
it, so reports can be shared without leaking argument values.
"""

from __future__ import annotations

from hashlib import blake2b

__all__ = ["fingerprint"]

_KEY = b"loopmetric/fingerprint/v1"


_KEYED = blake2b(digest_size=8, key=_KEY)  # copied for each fingerprint: the key is hashed once


def fingerprint(*parts: str) -> str:
    """Fingerprint of the parts, each kept apart from the next."""
    data = "\x1f".join(parts) + "\x1f"  # the same bytes as updating part by part
    digest = _KEYED.copy()
    digest.update(data.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
