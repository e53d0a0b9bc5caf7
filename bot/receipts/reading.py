"""A receipt's text: a PDF's own text (pypdf), an image's by OCR (Tesseract's Portuguese model).

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
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from PIL import Image, ImageOps, ImageStat, UnidentifiedImageError
from pypdf import PdfReader
from pypdf.errors import PdfReadError

from bot.receipts.fields import Receipt, read_fields

MAX_BYTES = 20 * 1024 * 1024  # above any channel's limit for a photo or a document of a receipt
MAX_PIXELS = 40_000_000  # a phone's photo is 12-50 MP; a screenshot 2-4 MP
OCR_WIDTH = 1400  # wider images are scaled down to it: the text stays legible, the CPU bounded
MIN_WIDTH = 900  # narrower ones are scaled up: Tesseract reads small letters badly
MAX_PAGES = 5  # a receipt is one page, two at most; a PDF of thousands is not one
OCR_SECONDS = 20
LANGUAGE = "por"
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
def ocr_available() -> bool:
    """Tesseract with the Portuguese model is installed (``ispbot doctor`` says it)."""
    program = shutil.which("tesseract")
    if program is None:
        return False
    try:
        listed = subprocess.run(  # noqa: S603 - the program found on PATH, fixed arguments
            [program, "--list-langs"], capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return LANGUAGE in listed.stdout.split()


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
        return Reading(read_fields(image_text(content)), fingerprint, "ocr")
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


def image_text(content: bytes) -> str:
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
    gray = ImageOps.autocontrast(gray, cutoff=1)
    buffer = io.BytesIO()
    gray.save(buffer, format="PNG")
    return _tesseract(buffer.getvalue())


def _mean(image: Image.Image) -> float:
    return float(ImageStat.Stat(image).mean[0])


def _tesseract(png: bytes) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    program = shutil.which("tesseract") or "tesseract"
    try:
        done = subprocess.run(  # noqa: S603 - fixed arguments; the image goes in on standard input
            [program, "stdin", "stdout", "-l", LANGUAGE, "--psm", "4"], input=png, capture_output=True,
            timeout=OCR_SECONDS, env=env, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise Refused("unreadable") from exc
    if done.returncode != 0:
        raise Refused("unreadable")
    return done.stdout.decode("utf-8", "replace")
