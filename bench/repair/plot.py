"""Repair rate against cost per repair, one point per model, from the JSON reports in a folder (so results
from several models, measured by several people, accumulate). matplotlib comes with the `bench` extra."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .results import Report, read_report

PLOT_FILE = "repair-rate-vs-cost.png"


@dataclass(frozen=True)
class Point:
    label: str  # model (mode, date)
    repair_rate: float
    cost_per_repair: float | None  # None: the model has no price (scripted, a local server)


def points(folder: Path) -> list[Point]:
    """The latest live or local report of each (mode, provider, model) in `folder`, as a point; a file
    that is no report is a ValueError naming it, and a folder with nothing to plot is one too."""
    latest: dict[tuple[str, str, str], Report] = {}
    for path in sorted(folder.glob("*.json")):
        report = read_report(path)
        p = report.provenance
        if p.mode == "scripted":
            continue  # the known fix as the answer: a measure of the tool, not of a model
        key = (p.mode, p.provider, p.model)
        if key not in latest or latest[key].provenance.date < p.date:
            latest[key] = report
    found = []
    for report in latest.values():
        totals, p = report.totals, report.provenance
        if totals.repair_rate is None:
            continue  # no repairable task was run: nothing to place
        found.append(Point(f"{p.model} ({p.mode}, {p.date[:10]})", totals.repair_rate, totals.cost_per_repair))
    if not found:
        run = "python -m bench repair --mode live"
        raise ValueError(f"{folder}: no report with a repairable task to plot (run `{run}` first)")
    return found


def plot(folder: Path) -> Path:
    """Draw the points into <folder>/repair-rate-vs-cost.png and return its path. A model without a price
    is drawn at cost 0 and says so in its label."""
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    for point in points(folder):
        cost = point.cost_per_repair
        label = point.label if cost is not None else f"{point.label}, no price"
        axes.scatter([cost or 0.0], [point.repair_rate * 100])
        axes.annotate(label, (cost or 0.0, point.repair_rate * 100), textcoords="offset points", xytext=(5, 5))
    axes.set_xlabel("cost per repair (USD, code-commit's estimate)")
    axes.set_ylabel("repair rate (% of repairable tasks)")
    axes.set_ylim(0, 105)
    axes.set_xlim(left=0)
    axes.set_title("code-commit: repair rate against cost (python -m bench repair)")
    axes.grid(True, alpha=0.3)
    path = folder / PLOT_FILE
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)
    return path
