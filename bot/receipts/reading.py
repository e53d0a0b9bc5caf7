"""A receipt's text: a PDF's own text (pypdf), an image's by OCR (Tesseract's Portuguese model).

An image is read once whole; the line of a PIX end-to-end id or a billet's digitable line read
wrong there (a character doubled or dropped, check digits that fail) is read a second time alone.
``read_receipt`` runs in a worker thread (``asyncio.to_thread``), so no turn waits on it, and is
bounded: a file over ``MAX_BYTES``, an image over ``MAX_PIXELS`` (a decompression bomb), a PDF with
JavaScript or over ``MAX_PAGES`` pages is refused (``Refused``, with the reason the person is told)
before any work; Tesseract runs as a program with one thread and a time limit. Nothing read is
logged: a receipt holds names, tax ids and bank details.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Literal

from PIL import Image, ImageOps, ImageStat, UnidentifiedImageError
from pypdf import PdfReader
from pypdf.errors import PdfReadError

from bot.receipts.fields import Receipt, digitable, end_to_end_candidates, end_to_end_key, read_fields

MAX_BYTES = 20 * 1024 * 1024  # above any channel's limit for a photo or a document of a receipt
MAX_PIXELS = 40_000_000  # a phone's photo is 12-50 MP; a screenshot 2-4 MP
OCR_WIDTH = 1400  # wider images are scaled down to it: the text stays legible, the CPU bounded
MIN_WIDTH = 900  # narrower ones are scaled up: Tesseract reads small letters badly
MAX_PAGES = 5  # a receipt is one page, two at most; a PDF of thousands is not one
OCR_SECONDS = 20
LANGUAGE = "por"
ID_LANGUAGE = "eng"
SECOND_LOOK_SCALES = (1.0, 0.8, 0.6)  # the sizes a long id's line is read again at, the readings voted on
_ID_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_LINE_CHARACTERS = "0123456789. "
_E2E_WORD = re.compile(r"^E[0-9OoIlSB]{6}")
_LINE_GROUP = re.compile(r"^\d{4,6}[.,]\d{4,7}$")  # a digitable line's group (12345.67890), a digit off
_OCR_SEMAPHORE = asyncio.Semaphore(2)  # the number of OCRs at once, whatever the number of chats


class Refused(Exception):
    """A file not read, on purpose: ``reason`` is a word the flow turns into the person's answer
    (``too_large``, ``too_many_pixels``, ``pdf_script``, ``too_many_pages``; ``unreadable`` stays
    inside this module: such a file is read as saying nothing)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Reading:
    receipt: Receipt
    fingerprint: str  # the file's sha256: the same file sent twice
    how: Literal["pdf", "ocr", "none"]  # "none": an image without Tesseract here


@cache
def _languages() -> frozenset[str]:
    """The models Tesseract has here; none without Tesseract."""
    program = shutil.which("tesseract")
    if program is None:
        return frozenset()
    try:
        listed = subprocess.run(  # noqa: S603 - the program found on PATH, fixed arguments
            [program, "--list-langs"], capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(listed.stdout.split())


def ocr_available() -> bool:
    """Tesseract with the Portuguese model is installed (``ispbot doctor`` says it)."""
    return LANGUAGE in _languages()


def _id_language() -> str:
    """The model the second look at an id reads with: the English one (installed with Tesseract) reads
    a run of letters and digits with fewer doubled characters than the Portuguese one, whose words
    pull it."""
    return ID_LANGUAGE if ID_LANGUAGE in _languages() else LANGUAGE


async def read_receipt_async(content: bytes, *, pdf: bool) -> Reading:
    """``read_receipt`` in a worker thread, at most two at once."""
    async with _OCR_SEMAPHORE:
        return await asyncio.to_thread(read_receipt, content, pdf=pdf)


def read_receipt(content: bytes, *, pdf: bool) -> Reading:
    if len(content) > MAX_BYTES:
        raise Refused("too_large")
    fingerprint = hashlib.sha256(content).hexdigest()
    nothing = Reading(Receipt(missing=("amount", "date")), fingerprint, "none")
    try:
        if pdf or content[:5] == b"%PDF-":
            return Reading(read_fields(pdf_text(content)), fingerprint, "pdf")
        if not ocr_available():
            return nothing
        return Reading(image_receipt(content), fingerprint, "ocr")
    except Refused as refused:
        if refused.reason == "unreadable":  # a file nothing reads goes on as a file, for staff to see
            return nothing
        raise


def pdf_text(content: bytes) -> str:
    try:
        reader = PdfReader(io.BytesIO(content), strict=False)
        if len(reader.pages) > MAX_PAGES:
            raise Refused("too_many_pages")
        if _has_script(reader):
            raise Refused("pdf_script")
        return "\n".join(page.extract_text() or "" for page in reader.pages)
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise Refused("unreadable") from exc


def _has_script(reader: PdfReader) -> bool:
    """JavaScript or an action run on opening: no bank's receipt carries one."""
    root: Any = reader.trailer["/Root"].get_object()
    names = root.get("/Names")
    if "/AA" in root or (names is not None and "/JavaScript" in names.get_object()):
        return True
    opening = root.get("/OpenAction")
    if opening is not None and _is_script(opening.get_object()):  # a zoom on opening (a list) is no script
        return True
    return any("/AA" in page or _annotations_have_script(page) for page in reader.pages)


def _annotations_have_script(page: Any) -> bool:
    annotations = page.get("/Annots") if hasattr(page, "get") else None
    for annotation in (annotations.get_object() if annotations is not None else []) or []:
        action = annotation.get_object().get("/A")
        if action is not None and _is_script(action.get_object()):
            return True
    return False


def _is_script(action: object) -> bool:
    return hasattr(action, "get") and action.get("/S") in ("/JavaScript", "/Launch")


def image_receipt(content: bytes) -> Receipt:
    """An image's fields: one OCR of the page, then a second look only at the line of a long id the
    page's reading left unshaped (a PIX end-to-end id of the wrong length, a digitable line whose
    check digits fail): cut out and read again at a few sizes, only an id's characters allowed."""
    gray = _prepared(content)
    words = _words(_tesseract(_png(gray), "--psm", "4", "tsv"))
    receipt = read_fields(_text(words))
    if receipt.end_to_end is None and (found := _line_box(words, _E2E_WORD, _alphanumerics, 32)) is not None:
        receipt = replace(receipt, end_to_end=_agreed(
            end_to_end_candidates(text) for text in _second_look(gray, found, _ID_CHARACTERS)))
    if receipt.digitable_line is None and (found := _line_box(words, _LINE_GROUP, _digits, 47)) is not None:
        lines = [line for text in _second_look(gray, found, _LINE_CHARACTERS) if (line := digitable(text))]
        receipt = replace(receipt, digitable_line=lines[0] if lines else None)
    return receipt


def image_text(content: bytes) -> str:
    """An image's text as one OCR of the page reads it."""
    return _text(_words(_tesseract(_png(_prepared(content)), "--psm", "4", "tsv")))


def _prepared(content: bytes) -> Image.Image:
    """The image in gray at a width Tesseract reads well, dark text on a light background."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # Pillow refuses a bomb itself past twice this
    try:
        with Image.open(io.BytesIO(content)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise Refused("too_many_pixels")
            image.draft("L", (OCR_WIDTH, OCR_WIDTH * height // max(width, 1)))  # a JPEG decoded small
            gray = ImageOps.exif_transpose(image).convert("L")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise Refused("too_many_pixels") from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise Refused("unreadable") from exc
    if gray.width > OCR_WIDTH or gray.width < MIN_WIDTH:
        target = OCR_WIDTH if gray.width > OCR_WIDTH else MIN_WIDTH
        gray = gray.resize((target, max(1, gray.height * target // gray.width)), Image.Resampling.LANCZOS)
    if _mean(gray) < 110:  # a dark-mode screenshot: light letters on a dark background
        gray = ImageOps.invert(gray)
    return ImageOps.autocontrast(gray, cutoff=1)


@dataclass(frozen=True, slots=True)
class _Word:
    line: tuple[int, int, int]  # Tesseract's block, paragraph and line
    text: str
    box: tuple[int, int, int, int]  # left, top, right, bottom


def _words(tsv: str) -> list[_Word]:
    words: list[_Word] = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5" or not cells[11].strip():
            continue
        left, top, width, height = (int(c) for c in cells[6:10])
        words.append(_Word((int(cells[2]), int(cells[3]), int(cells[4])), cells[11].strip(),
                           (left, top, left + width, top + height)))
    return words


def _text(words: list[_Word]) -> str:
    """The words as lines, a blank line between paragraphs, as Tesseract's own text output."""
    out: list[str] = []
    previous: tuple[int, int, int] | None = None
    for word in words:
        if previous is None or word.line != previous:
            if previous is not None and word.line[:2] != previous[:2]:
                out.append("\n")
            out.append("\n" if previous is not None else "")
        else:
            out.append(" ")
        out.append(word.text)
        previous = word.line
    return "".join(out)


def _line_box(words: list[_Word], shape: re.Pattern[str], length: Callable[[str], int], full: int,
              ) -> tuple[tuple[int, int, int, int], bool] | None:
    """The box of the first line holding a word of ``shape``, with the next line when the first holds
    less than ``full`` (by ``length``: a long id wraps on a narrow screen); and whether it is two
    lines. None when no word has the shape."""
    start = next((w for w in words if shape.search(w.text)), None)
    if start is None:
        return None
    lines = [start.line]
    following = [w.line for w in words if w.line > start.line]
    if following and length(" ".join(w.text for w in words if w.line == start.line)) < full:
        lines.append(min(following))
    boxes = [w.box for w in words if w.line in lines]
    box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    return box, len(lines) > 1


def _second_look(gray: Image.Image, found: tuple[tuple[int, int, int, int], bool], characters: str) -> list[str]:
    """The line in the box read again at a few sizes, only the characters such an id holds allowed:
    the copies are stacked in one image, so one Tesseract reads them all (its model loaded once),
    and each copy's words are told apart by where they stand. The readings are voted on."""
    (left, top, right, bottom), two_lines = found
    pad = max(6, (bottom - top) // (8 if two_lines else 4))
    line = gray.crop((max(0, left - 3 * pad), max(0, top - pad), min(gray.width, right + 3 * pad),
                      min(gray.height, bottom + pad)))
    copies = [line if scale == 1 else line.resize((round(line.width * scale), round(line.height * scale)),
                                                  Image.Resampling.LANCZOS) for scale in SECOND_LOOK_SCALES]
    gap = line.height
    stacked = Image.new("L", (line.width, sum(c.height for c in copies) + gap * len(copies)), 255)
    bands: list[tuple[int, int]] = []
    y = gap // 2
    for copy in copies:
        stacked.paste(copy, (0, y))
        bands.append((y - gap // 2, y + copy.height + gap // 2))
        y += copy.height + gap
    words = _words(_tesseract(_png(stacked), "--psm", "6", "-c", f"tessedit_char_whitelist={characters}", "tsv",
                              language=_id_language()))
    return [_text([w for w in words if low <= (w.box[1] + w.box[3]) // 2 < high]) for low, high in bands]


def _agreed(readings: Iterable[list[str]]) -> str | None:
    """The id most readings agree on (OCR's look-alikes folded), the first reading's on a tie."""
    found = [candidate for candidates in readings for candidate in candidates[:1]]
    if not found:
        return None
    votes = Counter(end_to_end_key(c) for c in found)
    best = max(votes.values())
    return next(c for c in found if votes[end_to_end_key(c)] == best)


def _alphanumerics(text: str) -> int:
    return sum(c.isalnum() for c in text)


def _digits(text: str) -> int:
    return sum(c.isdecimal() for c in text)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _mean(image: Image.Image) -> float:
    return float(ImageStat.Stat(image).mean[0])


def _tesseract(png: bytes, *options: str, language: str = LANGUAGE) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    program = shutil.which("tesseract") or "tesseract"
    try:
        done = subprocess.run(  # noqa: S603 - fixed arguments; the image goes in on standard input
            [program, "stdin", "stdout", "-l", language, *options], input=png, capture_output=True,
            timeout=OCR_SECONDS, env=env, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise Refused("unreadable") from exc
    if done.returncode != 0:
        raise Refused("unreadable")
    return done.stdout.decode("utf-8", "replace")
