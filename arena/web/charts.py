"""Server-rendered SVG charts: a rating's 95 % interval on a shared scale, and a bot's Elo
over its rated matches. Plain SVG text, no script, so they show without JavaScript."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape


def scale(rows: Sequence[dict[str, Any]], pad: float = 10.0) -> tuple[float, float]:
    """The Elo range that holds every row's interval, for drawing them on one axis."""
    if not rows:
        return 1400.0, 1600.0
    low = min(r["low"] for r in rows) - pad
    high = max(r["high"] for r in rows) + pad
    return low, max(high, low + 1.0)


def interval(row: dict[str, Any], axis: tuple[float, float], width: int = 160, height: int = 16) -> Markup:
    """The 95 % interval as a bar and the Elo as a dot, placed on ``axis``."""
    low, high = axis

    def x(value: float) -> float:
        return round(4 + (width - 8) * (value - low) / (high - low), 1)

    title = f"Elo {row['elo']:.0f}, 95 % interval {row['low']:.0f} to {row['high']:.0f}"
    mid = height / 2
    return Markup(
        f'<svg class="interval" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
        f'<line class="axis" x1="4" x2="{width - 4}" y1="{mid}" y2="{mid}"/>'
        f'<rect class="ci" x="{x(row["low"])}" y="{mid - 4}" width="{max(1.0, x(row["high"]) - x(row["low"]))}" '
        f'height="8" rx="3"/><circle class="elo" cx="{x(row["elo"])}" cy="{mid}" r="4"/></svg>'
    )


def rating_line(points: Sequence[dict[str, Any]], width: int = 560, height: int = 180) -> Markup:
    """Elo after each rated match (``points`` from ``queries.rating_history``): a line with
    the start value dashed, axis labels at the extremes, one marker per point."""
    if not points:
        return Markup("")
    left, right, top, bottom = 44, 8, 10, 22
    xs = [p["n"] for p in points]
    ys = [p["elo"] for p in points]
    x0, x1 = min(xs), max(max(xs), min(xs) + 1)
    y0, y1 = min(min(ys), 1500.0) - 10, max(max(ys), 1500.0) + 10

    def px(n: float) -> float:
        return round(left + (width - left - right) * (n - x0) / (x1 - x0), 1)

    def py(elo: float) -> float:
        return round(top + (height - top - bottom) * (y1 - elo) / (y1 - y0), 1)

    path = " ".join(f"{'M' if i == 0 else 'L'}{px(p['n'])},{py(p['elo'])}" for i, p in enumerate(points))
    last = points[-1]
    label = f"Elo over {last['n']} rated matches, from {points[0]['elo']:.0f} to {last['elo']:.0f}"
    dots = "".join(
        f'<circle cx="{px(p["n"])}" cy="{py(p["elo"])}" r="2"><title>after match {p["n"]}: {p["elo"]:.0f}</title></circle>'
        for p in points[1:] if len(points) <= 120)
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">'
        f'<title>{escape(label)}</title>'
        f'<line class="base" x1="{left}" x2="{width - right}" y1="{py(1500)}" y2="{py(1500)}"/>'
        f'<text x="{left - 4}" y="{py(y1 - 10) + 4}" text-anchor="end">{y1 - 10:.0f}</text>'
        f'<text x="{left - 4}" y="{py(y0 + 10) + 4}" text-anchor="end">{y0 + 10:.0f}</text>'
        f'<text x="{left}" y="{height - 6}">0</text>'
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end">{last["n"]} matches</text>'
        f'<path class="line" d="{path}"/>{dots}</svg>'
    )


def progress(done: int, total: int, width: int = 200) -> Markup:
    """A progress bar that needs neither script nor stylesheet to read."""
    share = done / total if total else 1.0
    label = f"{done} of {total} matches"
    return Markup(
        f'<svg class="progress" viewBox="0 0 {width} 12" width="{width}" height="12" role="img" '
        f'aria-label="{label}"><title>{label}</title><rect class="track" width="{width}" height="12" rx="6"/>'
        f'<rect class="done" width="{round(width * share, 1)}" height="12" rx="6"/></svg>'
    )
