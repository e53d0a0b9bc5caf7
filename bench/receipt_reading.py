"""The receipt reader on the drawn table (``bench.receipt_samples``): the share of receipts with every
field right, each field's share, the CPU per receipt (this process and Tesseract's) for images and
PDFs, the memory each receipt takes (this process's peak above what it held before the receipt, the
peak reset before each one; and the largest Tesseract's), and the machine's load while it ran.

    python -m bench.receipt_reading [--count 60] [--first 0]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import time

from bot.receipts.reading import ocr_available, read_receipt

from bench.receipt_samples import FIELDS, samples, wrong_fields
from bench.report import emit, figure


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _status_kb(field: str) -> int:
    """A figure of this process's /proc/self/status (Linux), in kB."""
    with open("/proc/self/status") as status:
        found = re.search(rf"{field}:\s+(\d+)", status.read())
    return int(found.group(1)) if found else 0


def _reset_peak() -> int:
    """Reset this process's peak resident memory (Linux) and return the memory resident now, in kB."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return _status_kb("VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=60, help="receipts drawn (ten banks in turn)")
    parser.add_argument("--first", type=int, default=0, help="the first of them read (the table's order)")
    args = parser.parse_args()
    table = [s for s in samples(args.count)[args.first:] if s.pdf or ocr_available()]
    right = 0
    wrong_by_field = dict.fromkeys(FIELDS, 0)
    scored_by_field = dict.fromkeys(FIELDS, 0)
    cpu: dict[str, list[float]] = {"image": [], "pdf": []}
    memory_mb: list[float] = []
    load_before = os.getloadavg()[0]
    for sample in table:
        resident = _reset_peak()
        start = _cpu()
        reading = read_receipt(sample.content, pdf=sample.pdf)
        cpu["pdf" if sample.pdf else "image"].append(_cpu() - start)
        memory_mb.append((_status_kb("VmHWM") - resident) / 1024)
        wrong = wrong_fields(reading.receipt, sample.truth)
        right += not wrong
        for name in FIELDS:
            scored_by_field[name] += getattr(sample.truth, name) is not None
            wrong_by_field[name] += name in wrong
    fields = {name: round(1 - wrong_by_field[name] / scored, 3) for name, scored in scored_by_field.items() if scored}
    emit(figure(
        "receipt_reading", receipts=len(table), ocr=ocr_available(),
        all_fields_right=round(right / max(len(table), 1), 3),
        fields=fields,
        cpu_image_s_mean=round(statistics.fmean(cpu["image"]), 3) if cpu["image"] else None,
        cpu_image_s_max=round(max(cpu["image"]), 3) if cpu["image"] else None,
        cpu_pdf_ms_mean=round(1000 * statistics.fmean(cpu["pdf"]), 1) if cpu["pdf"] else None,
        memory_per_receipt_mb_mean=round(statistics.fmean(memory_mb), 1),
        memory_per_receipt_mb_max=round(max(memory_mb), 1),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        tesseract_peak_rss_mb=round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        load_1m=[round(load_before, 1), round(os.getloadavg()[0], 1)],
        measured_at=time.strftime("%Y-%m-%d"),
    ))


if __name__ == "__main__":
    main()
