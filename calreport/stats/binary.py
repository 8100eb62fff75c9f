"""Stored bytes of a state: the binary column form, bounded inflation and the digest.

The binary form (``Accumulator.to_bytes``) is :data:`MAGIC` followed by one zlib
stream of an 8-byte little-endian header length, the header (the JSON payload of
``to_json`` in which every array is ``{"dtype", "shape", "at"}``) and the body: the
arrays' raw little-endian bytes, one after another, at their offsets ``at``.  No
array passes through base64 or JSON text, so saving and loading cost about one
``memcpy`` and the compression of the bytes.  The stream is inflated in pieces and
refused past ``max_bytes`` (a bomb is never inflated further); the header is then
read and validated like the JSON form (:func:`~calreport.stats.store.state_from_dict`
with the body).

The optional digest is an HMAC-SHA256 over the canonical JSON of the payload without
its digest, followed (binary form) by the body's bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import zlib
from typing import Any

import numpy as np

from calreport.stats.store import check_budget

__all__ = ["MAGIC", "BinaryWriter", "check_max_bytes", "digest", "inflate", "key_bytes",
           "no_constant", "pack", "unpack"]

#: First bytes of the binary form (the JSON form, zlib-compressed, opens otherwise).
MAGIC = b"calreport.state\x00"
#: Bytes inflated per read: the first read shows whether the payload opens as expected.
_CHUNK = 1 << 20
#: zlib level of the binary form: the fastest (the limbs compress well at any level).
_LEVEL = 1
_FIX = "Pass exactly the bytes returned by to_bytes()."


def check_max_bytes(max_bytes: Any) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) \
            or max_bytes < 1:
        raise ValueError(f"`max_bytes` must be a positive integer, got {max_bytes!r}.")


def no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a stored value (states hold finite numbers)")


def _inflate(data: bytes | memoryview, max_bytes: int, json_text: bool) -> bytearray:
    """The bytes of zlib ``data``, read in pieces and refused past ``max_bytes`` (peak
    memory about ``max_bytes``), and refused at the first piece unless they open as
    the payload does: a JSON object (``json_text``), or the binary form's 8-byte
    header length (at most ``max_bytes``) and its JSON header.

    The input is fed a piece at a time too, so no call copies the rest of the input.
    """
    z, out, view, start = zlib.decompressobj(), bytearray(), memoryview(data), 0
    opened = False
    try:
        while start < len(view) and not z.eof:
            piece: bytes | memoryview = view[start:start + _CHUNK]
            start += len(piece)
            while piece and not z.eof:
                out += z.decompress(piece, _CHUNK)
                piece = z.unconsumed_tail
                first = b"" if opened else (out[:_CHUNK].lstrip()[:1] if json_text
                                            else out[8:9])
                if first:
                    if first != b"{":
                        raise ValueError("Not a calreport statistics state: the bytes do not "
                                         "inflate to a JSON object. Pass the bytes returned "
                                         "by to_bytes().")
                    if not json_text:
                        check_budget(int.from_bytes(out[:8], "little"), max_bytes,
                                     "The binary state's header")
                    opened = True
                if len(out) > max_bytes:
                    check_budget(len(out), max_bytes, "The inflated payload")
    except zlib.error as exc:
        raise ValueError(f"Not a calreport statistics state: the bytes are not zlib data "
                         f"({exc}). Pass the bytes returned by to_bytes().") from None
    if not z.eof:
        raise ValueError("Not a calreport statistics state: the bytes end before the "
                         "compressed stream does (truncated). Pass the whole to_bytes() "
                         "payload.")
    extra = len(z.unused_data) + len(view) - start
    if extra:
        raise ValueError(f"The stored bytes go on {extra:,} bytes past the "
                         "compressed state. Pass exactly the to_bytes() payload.")
    return out


def inflate(data: bytes, max_bytes: int) -> str:
    """The text of zlib-compressed JSON ``data``, refused past ``max_bytes``."""
    return _inflate(data, max_bytes, True).decode("utf-8", errors="replace")


def key_bytes(key: bytes | str) -> bytes:
    k = key.encode() if isinstance(key, str) else bytes(key)
    if not k:
        raise ValueError("`key` is empty: pass the secret bytes (or str) of the digest.")
    return k


def digest(payload: dict[str, Any], key: bytes | str, body: bytes | None = None) -> str:
    """HMAC-SHA256 of the payload (without its digest), over canonical JSON, then the
    body of the binary form (if any)."""
    head = {k: v for k, v in payload.items() if k != "hmac_sha256"}
    text = json.dumps(head, sort_keys=True, separators=(",", ":"), allow_nan=False)
    mac = hmac.new(key_bytes(key), text.encode(), hashlib.sha256)
    if body is not None:
        mac.update(body)
    return mac.hexdigest()


class BinaryWriter:
    """Collects arrays for the body of the binary form; as an encoder for
    :func:`~calreport.stats.store.state_to_dict`, returns each one's header entry."""

    def __init__(self) -> None:
        self.parts: list[np.ndarray] = []
        self.size = 0

    def __call__(self, a: np.ndarray) -> dict[str, Any]:
        a = np.ascontiguousarray(a, dtype=np.asarray(a).dtype.newbyteorder("<"))
        entry = {"dtype": str(a.dtype.newbyteorder("=")), "shape": list(a.shape),
                 "at": self.size}
        self.parts.append(a)
        self.size += a.nbytes
        return entry

    def body(self) -> bytes:
        """The arrays' bytes, one after another."""
        return b"".join(p.tobytes() for p in self.parts)


def pack(payload: dict[str, Any], body: bytes) -> bytes:
    """:data:`MAGIC` and the compressed header length, header and body."""
    head = json.dumps(payload, separators=(",", ":"), allow_nan=False).encode()
    z = zlib.compressobj(_LEVEL)
    parts = [MAGIC, z.compress(len(head).to_bytes(8, "little")), z.compress(head),
             z.compress(body), z.flush()]
    return b"".join(parts)


def unpack(data: bytes, max_bytes: int) -> tuple[Any, bytes]:
    """The parsed header and the body of a binary form (inflated no further than
    ``max_bytes``).

    Raises
    ------
    ValueError
        When the bytes are not zlib data, are truncated or go on past the stream, the
        header length does not fit, or the header is not JSON.
    """
    raw = _inflate(memoryview(data)[len(MAGIC):], max_bytes, False)
    if len(raw) < 8:
        raise ValueError(f"The binary state inflates to {len(raw)} bytes, fewer than its "
                         f"8-byte header length (truncated). {_FIX}")
    n = int.from_bytes(raw[:8], "little")
    if n > len(raw) - 8:
        raise ValueError(f"The binary state's header claims {n:,} bytes; only "
                         f"{len(raw) - 8:,} follow (truncated or altered). {_FIX}")
    try:
        head = json.loads(raw[8:8 + n].decode("utf-8"), parse_constant=no_constant)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"The binary state's header is not valid JSON ({exc}). {_FIX}"
                         ) from None
    return head, bytes(raw[8 + n:])
