"""The receipt reader on the drawn table (``bench.receipt_samples``): the share of receipts with every
field right, each field's share, the CPU per receipt (this process and Tesseract's) for images and
PDFs, and the peak memory (this process's and the largest Tesseract's).

    python -m bench.receipt_reading [--count 60]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from bot.receipts.reading import ocr_available, read_receipt

from bench.receipt_samples import FIELDS, samples, wrong_fields
from bench.report import emit, figure


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=60, help="receipts drawn (ten banks in turn)")
    args = parser.parse_args()
    table = [s for s in samples(args.count) if s.pdf or ocr_available()]
    right = 0
    wrong_by_field = dict.fromkeys(FIELDS, 0)
    scored_by_field = dict.fromkeys(FIELDS, 0)
    cpu: dict[str, list[float]] = {"image": [], "pdf": []}
    for sample in table:
        start = _cpu()
        reading = read_receipt(sample.content, pdf=sample.pdf)
        cpu["pdf" if sample.pdf else "image"].append(_cpu() - start)
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
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        tesseract_peak_rss_mb=round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        measured_at=time.strftime("%Y-%m-%d"),
    ))


if __name__ == "__main__":
    main()
