"""A big group's evidence texts kept compressed during its replay (docs/replay.md "Evidence text
left in Arrow"): the `raw` column cut into blocks of BLOCK_ROWS rows, each block's UTF-8 bytes
compressed with LZ4 (Arrow's codec, in C), and only the row offsets kept plain.

Why: the replay reads few of a hot group's texts (the whole-timeline scans read each once, a few
rules read single rows), yet the column was held whole in Arrow for the whole replay: 66 MB for
bench-hot's 330,528 lines, beside the replay's own Python objects, at the hot worker's peak.
Log lines repeat most of their bytes, so a block of 256 lines compresses 13x on the bench input
(a short block: reading one line decompresses ~50 KB, a few microseconds).

PackedTexts reads as lazy_text.ArrowTexts does (text by row, texts of rows, rows containing
words): the same str values, byte for byte (the texts are Arrow's validated UTF-8, decoded by
Arrow or by Python's decoder alike).
"""

from __future__ import annotations

from typing import Any

BLOCK_ROWS = 256
CODEC = "lz4"


def available() -> bool:
    import pyarrow as pa

    try:
        return bool(pa.Codec.is_available(CODEC))
    except (ValueError, AttributeError):
        return False


class PackedTexts:
    """One group's texts (a pyarrow string column without nulls) in compressed blocks."""

    def __init__(self, column: Any) -> None:
        import numpy as np
        import pyarrow as pa

        n = len(column)
        self.n = n
        self.blocks: list[Any] = []           # block b: rows b*BLOCK_ROWS.. as compressed bytes
        self.sizes: list[int] = []            # its uncompressed size
        self.offsets = np.zeros(n + 1, dtype=np.int64)   # each row's start in its block's bytes
        self._last: tuple[int, bytes] | None = None      # the block decoded last (index, bytes)
        for start in range(0, n, BLOCK_ROWS):
            k = min(BLOCK_ROWS, n - start)
            part = column.slice(start, k)
            arr = part.combine_chunks() if isinstance(part, pa.ChunkedArray) else part  # 2 chunks at most
            width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
            offs = np.frombuffer(arr.buffers()[1], dtype=width)[arr.offset:arr.offset + k + 1].astype(np.int64)
            lo = int(offs[0])
            self.offsets[start:start + k + 1] = offs - lo
            data = arr.buffers()[2]
            size = int(offs[-1]) - lo
            raw = data.slice(lo, size) if data is not None and size else pa.py_buffer(b"")
            self.blocks.append(pa.compress(raw, codec=CODEC, asbytes=True))
            self.sizes.append(size)
            # (offsets[start + k], block b's end, is overwritten by block b+1's first: 0; _ends
            # and text take block b's end from its size)
            del part, arr, offs, data, raw
        self.fetched: dict[int, str] = {}

    def __len__(self) -> int:
        return self.n

    def nbytes(self) -> int:
        return sum(map(len, self.blocks)) + self.offsets.nbytes

    def _bytes(self, b: int) -> bytes:
        import pyarrow as pa

        last = self._last
        if last is not None and last[0] == b:
            return last[1]
        data = pa.decompress(self.blocks[b], decompressed_size=self.sizes[b], codec=CODEC, asbytes=True)
        self._last = (b, data)
        return data

    def _ends(self, b: int) -> Any:
        """Row offsets of block b (BLOCK_ROWS + 1 or fewer), its last the block's size."""
        start = b * BLOCK_ROWS
        k = min(BLOCK_ROWS, self.n - start)
        offs = self.offsets[start:start + k + 1].copy()
        offs[-1] = self.sizes[b]
        return offs

    def _array(self, b: int) -> Any:
        """Block b as a pyarrow string array (its texts)."""
        import numpy as np
        import pyarrow as pa

        data = self._bytes(b)
        offs = self._ends(b).astype(np.int32)
        return pa.StringArray.from_buffers(len(offs) - 1, pa.py_buffer(offs.tobytes()), pa.py_buffer(data))

    def text(self, row: int) -> str:
        t = self.fetched.get(row)
        if t is None:
            if not 0 <= row < self.n:
                raise IndexError(row)
            b = row // BLOCK_ROWS
            data = self._bytes(b)
            i = row - b * BLOCK_ROWS
            end = self.sizes[b] if i + 1 == min(BLOCK_ROWS, self.n - b * BLOCK_ROWS) else int(self.offsets[row + 1])
            t = self.fetched[row] = data[int(self.offsets[row]):end].decode("utf-8")
        return t

    def texts(self, rows: list[int]) -> list[str]:
        """The texts of `rows`, in their order: each block they fall in decoded once."""
        import numpy as np

        if not rows:
            return []
        idx = np.asarray(rows, dtype=np.int64)
        if int(idx.min()) < 0 or int(idx.max()) >= self.n:
            raise IndexError("row out of range")
        blk = idx // BLOCK_ROWS
        touched, inv = np.unique(blk, return_inverse=True)
        pool: list[str] = []
        firsts = []
        for b in touched.tolist():
            firsts.append(len(pool))
            pool += self._array(b).to_pylist()
        pos = idx - touched[inv] * BLOCK_ROWS + np.asarray(firsts, dtype=np.int64)[inv]
        if len(pos) == len(pool) and (pos == np.arange(len(pool))).all():
            return pool
        values = np.empty(len(pool), dtype=object)
        values[:] = pool
        return values[pos].tolist()

    def containing(self, words: tuple[str, ...]) -> Any:
        """A numpy bool per row: does its text contain one of `words`? Searched in each block's
        bytes with bytes.find, as ArrowTexts.containing searches a chunk's (a match counts for a row
        when it lies inside that row's bytes: exactly `word in text` for UTF-8)."""
        import numpy as np

        hit = np.zeros(self.n, dtype=bool)
        needles = [w.encode("utf-8") for w in words if w]
        if len(needles) < len(words):           # "" is in every text
            hit[:] = True
            return hit
        for b in range(len(self.blocks)):
            data = self._bytes(b)
            offs = self._ends(b)
            ends = offs[1:].tolist()
            base = b * BLOCK_ROWS
            for needle in needles:
                p = data.find(needle)
                while p != -1:
                    r = int(np.searchsorted(offs, p, side="right")) - 1
                    if p + len(needle) <= ends[r]:
                        hit[base + r] = True
                        p = data.find(needle, ends[r])    # the next row
                    else:                                  # across two rows' bytes: not a match
                        p = data.find(needle, p + 1)
        return hit
