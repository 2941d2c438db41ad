"""A log kept in another form, read as the UTF-8 bytes the scanner reads.

Logs reach diagnosis compressed (logrotate's ``compress`` leaves ``train.log.1.gz``; a CI
system's artifact download, a colleague's ``rank-3.log.xz`` attached to a ticket) and, from
Windows shells, in UTF-16: PowerShell 5's ``>`` writes UTF-16LE with a byte-order mark.
Both look like binary data to a sniff for text, and asking the user to unpack a directory
of rank logs first is a step nobody needs. They are told by their first bytes (not their
names: a renamed file is still what it is) and decoded as a stream, so memory stays as
bounded as for a plain log.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, cast

# the first bytes of each form (gzip's magic and deflate method; bzip2's "BZh" and a block
# size digit; xz's six-byte magic), and UTF-16's byte-order marks
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b\x08", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
PEEK = 6
_UTF8_BOM = codecs.BOM_UTF8
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def form_of(head: bytes) -> str | None:
    """ "gzip", "bzip2", "xz" or "utf-16" for a stream starting with ``head``; None for a
    plain one (UTF-8, or anything the text sniff then judges)."""
    for magic, form in _MAGIC:
        if head.startswith(magic):
            if form == "bzip2" and not head[3:4].isdigit():
                return None  # (a text log that starts with "BZh...")
            return form
    return None


def plain_name(name: str) -> str:
    """A file's name as its content's: ``launcher.log.gz`` is read as ``launcher.log``."""
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass
class HeadThen:
    """A stream whose first bytes were read to look at: they come first again. Not
    seekable, so the scanner reads it once, as it reads a pipe."""

    head: bytes
    rest: BinaryIO

    def seekable(self) -> bool:
        return False

    def read(self, n: int = -1) -> bytes:
        if not self.head:
            return self.rest.read(n)
        if n < 0:
            out, self.head = self.head + self.rest.read(), b""
            return out
        out, self.head = self.head[:n], self.head[n:]
        # (the bytes looked at are few: a read of more goes on into the rest, so whoever
        # sniffs what it reads first sees as much as it asked for)
        return out + self.rest.read(n - len(out)) if len(out) < n else out


@dataclass
class Decoded:
    """Read through a decompressor or a text decoder, forwards only.

    A compressed log cut short (copied while it was being written) or damaged part-way
    (a bad block, garbage after its end) is read up to there: what came before is the log,
    and ``damage`` says what was wrong, for a note. Damage before any text came out is an
    ``OSError`` naming the form, as an unreadable file is."""

    read_more: Callable[[int], bytes]
    form: str
    under: Decoded | None = None  # UTF-16 text inside a compressed file: its decompressor
    given: int = 0  # bytes read from this stream so far
    damage: str | None = None  # why reading stopped early

    def seekable(self) -> bool:
        return False

    @property
    def damaged(self) -> str | None:
        """What was wrong with the data, where reading it stopped early (None: nothing),
        counted in the text this stream gave (UTF-8, not the UTF-16 under it)."""
        why = self.damage or (self.under.damage if self.under is not None else None)
        return f"{why} after {self.given} bytes of text, read up to there" if why else None

    def read(self, n: int = -1) -> bytes:
        if n < 0:  # (the whole rest: what a read of a file's rest means)
            return b"".join(iter(lambda: self.read(1 << 20), b""))
        if n == 0 or self.damage is not None:
            return b""
        try:
            out = self.read_more(n)
        except EOFError:
            where = "early" if self.given else "before any text"
            return self._stop(f"its {self.form} data ends {where} (cut short)")
        except (OSError, zlib.error, lzma.LZMAError, ValueError) as exc:
            return self._stop(f"its {self.form} data is damaged ({exc})")
        self.given += len(out)
        return out

    def _stop(self, why: str) -> bytes:
        if not self.given:
            raise OSError(why)
        self.damage = why
        return b""


def _utf16_reader(raw: BinaryIO) -> Callable[[int], bytes]:
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")

    def read(n: int) -> bytes:
        while True:
            data = raw.read(n)
            text = decoder.decode(data, final=not data)
            if text or not data:
                return text.encode("utf-8")

    return read


def decoded(stream: BinaryIO) -> BinaryIO:
    """``stream`` as plain UTF-8 bytes from where it stands: a ``Decoded`` for a compressed
    or UTF-16 one (UTF-16 inside a compressed file too), else the stream as it is (a file
    moved back to where it stood; a pipe behind the bytes looked at), less a UTF-8
    byte-order mark (Notepad's "UTF-8 with BOM"), which would hide the first line's
    prefixes."""
    source, form = _peeked(stream)
    if form is None:
        return source
    if form == "utf-16":
        return cast(BinaryIO, Decoded(_utf16_reader(source), form))
    # (the caller's ``with`` closes the file under the decompressor, which holds nothing else)
    opened: gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile
    if form == "gzip":
        opened = gzip.GzipFile(fileobj=source, mode="rb")
    elif form == "bzip2":
        opened = bz2.BZ2File(source, mode="rb")
    else:
        opened = lzma.LZMAFile(source, mode="rb")  # noqa: SIM115
    # read1: one read of the compressed file at a time, so a file cut short loses nothing
    # of what came before its end (a buffered read that spans the end drops what it holds)
    unpacked = Decoded(opened.read1, form)
    text, inner = _peeked(cast(BinaryIO, unpacked))
    if inner == "utf-16":  # (PowerShell's output, then compressed)
        return cast(BinaryIO, Decoded(_utf16_reader(text), inner, under=unpacked))
    return text


def damage_of(stream: BinaryIO) -> str | None:
    """What was wrong with a stream ``decoded`` gave, where its reading stopped early."""
    while isinstance(stream, HeadThen):
        stream = stream.rest
    return stream.damaged if isinstance(stream, Decoded) else None


def _peeked(stream: BinaryIO) -> tuple[BinaryIO, str | None]:
    """The stream from where it stood, less a UTF-8 byte-order mark, and the form its first
    bytes say."""
    seekable = stream.seekable()
    at = stream.tell() if seekable else 0
    head = stream.read(PEEK)
    skip = len(_UTF8_BOM) if head.startswith(_UTF8_BOM) else 0
    if seekable:
        stream.seek(at + skip)
        return stream, form_of(head)
    return cast(BinaryIO, HeadThen(head[skip:], stream)), form_of(head)
