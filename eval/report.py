"""Reports: markdown tables in the paper's layout (Table 2 for LTP / stream files,
Tables 3-4 for LoCoMo) and a PNG bar chart comparing the rows (matplotlib, Agg).

``render_stream`` / ``render_locomo`` take a results dict (``results.json``), write
``report.md`` and ``report.png`` beside it and return the markdown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

__all__ = ["locomo_table", "ltp_table", "render_locomo", "render_stream", "write_chart"]

_DASH = "–"


def _f(v: Any, digits: int = 3) -> str:
    return _DASH if v is None else f"{v:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _label(name: str) -> str:
    return {"host": "host", "host+overlay": "host + overlay"}.get(name, name)


def ltp_table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """Table 2 layout: N, Bank coexist, Bank role, Evidence support, QA Acc, Conflict, Fact,
    Drift, Judge (when any row has a judge score), Judge calls/100 events."""
    judged = any(r.get("judge", {}).get("score") is not None for r in rows.values())
    header = ["Method", "N", "Bank coexist", "Bank role", "Evidence support", "QA Acc.", "Conflict", "Fact", "Drift"]
    header += ["Judge"] if judged else []
    header += ["Judge calls/100 events"]
    costed = any((r.get("host_cost") or {}).get("llm_calls_per_event") is not None for r in rows.values())
    header += ["Host LLM calls/event"] if costed else []
    out = []
    for name, r in rows.items():
        bank, writes = r.get("bank") or {}, r.get("writes") or {}
        cells = [_label(name), str(r["n"]), _f(bank.get("coexist")), _f(bank.get("role")), _f(r.get("evidence_support")),
                 _f(r.get("qa_acc")), _f(r.get("conflict_acc")), _f(r.get("fact_acc")), _f(r.get("drift_rate"))]
        cells += [_f(r.get("judge", {}).get("score"))] if judged else []
        cells += [_f(writes.get("judge_calls_per_100_events"), 1) if name != "host" else "0.0"]
        cells += [_f((r.get("host_cost") or {}).get("llm_calls_per_event"), 2)] if costed else []
        out.append(cells)
    return _table(header, out)


def diagnostics_table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    header = ["Method", "Target in pool", "Target in packet", "Stale leakage", "Future intrusion",
              "Wrong: candidate", "Wrong: ranking", "Wrong: QA", "Judge-resolved", "Audit fallbacks"]
    out = []
    for name, r in rows.items():
        ret, att = r.get("retrieval") or {}, r.get("attribution") or {}
        out.append([_label(name), _f(ret.get("target_in_pool")), _f(ret.get("target_in_packet")),
                    _f(ret.get("stale_leakage")), _f(ret.get("future_intrusion")), str(att.get("candidate", 0)),
                    str(att.get("ranking", 0)), str(att.get("qa", 0)), str((r.get("judge") or {}).get("resolved_by_judge", 0)),
                    str((r.get("writes") or {}).get("fallbacks", 0))])
    return _table(header, out)


def _partial_note(results: Mapping[str, Any]) -> str:
    if not results.get("partial"):
        return ""
    cfg = results.get("manifest", {}).get("config", {})
    bits = [f"--max-events {cfg['max_events']}" if cfg.get("max_events") is not None else "",
            f"--max-probes {cfg['max_probes']}" if cfg.get("max_probes") is not None else ""]
    return f"**PARTIAL RUN** ({' '.join(b for b in bits if b) or 'incomplete'}): not comparable with full results.\n\n"


def render_stream(results: Mapping[str, Any], out: Path) -> str:
    rows = results["rows"]
    src = results.get("source", {})
    title = {"ltp": "LTP reconstruction", "stream": "Stream evaluation"}.get(results["benchmark"], results["benchmark"])
    models = results.get("manifest", {}).get("models", {})
    md = [f"# {title}", "", _partial_note(results) + f"Source: `{src.get('path', '')}`"
          + (f" (profiles {src['profiles']})" if src.get("profiles") else "")
          + (f", first {src['units']} units per profile" if src.get("units") else "")
          + (", cue turns only (no LoCoMo filler)" if src.get("cues_only") else "")
          + f"; answer model `{(models.get('llm') or {}).get('name', '')}`.", "",
          ltp_table(rows), "", "Retrieval diagnostics and failure attribution (wrong probes):", "",
          diagnostics_table(rows), ""]
    per_view = ["", "Per view:", ""]
    pv_rows = []
    for name, r in rows.items():
        for view, v in r.get("per_view", {}).items():
            pv_rows.append([_label(name), view, str(v["n"]), _f(v["qa_acc"]), _f(v["drift_rate"])])
    md += per_view + [_table(["Method", "View", "N", "QA Acc.", "Drift"], pv_rows), ""]
    md += comparison_lines(results)
    va = [[_label(n), str(r["view_accuracy"]["n"]), _f(r["view_accuracy"]["acc"]),
           ", ".join(f"{v} {_f(x['acc'])}" for v, x in r["view_accuracy"]["per_view"].items())]
          for n, r in rows.items() if r.get("view_accuracy")]
    if va:
        md += ["View accuracy (profiler view vs the probe's view):", "",
               _table(["Method", "N", "View acc.", "Per probe view"], va), ""]
    text = "\n".join(md)
    (out / "report.md").write_text(text, encoding="utf-8")
    metrics = [("Bank coexist", lambda r: (r.get("bank") or {}).get("coexist")),
               ("Bank role", lambda r: (r.get("bank") or {}).get("role")),
               ("Evidence support", lambda r: r.get("evidence_support")), ("QA Acc.", lambda r: r.get("qa_acc")),
               ("Conflict", lambda r: r.get("conflict_acc")), ("Fact", lambda r: r.get("fact_acc")),
               ("Drift", lambda r: r.get("drift_rate"))]
    write_chart(out / "report.png", title + (" (partial)" if results.get("partial") else ""),
                [m for m, _ in metrics], {_label(n): [fn(r) for _, fn in metrics] for n, r in rows.items()})
    return text


def comparison_lines(results: Mapping[str, Any], what: str = "QA accuracy") -> list[str]:
    """Paired differences with 95% bootstrap intervals (from the manifest's comparisons)."""
    comps = (results.get("manifest") or {}).get("comparisons") or []
    if not comps:
        return []
    rows = [[_label(c["row"]), _label(c["vs"]), str(c["n"]), _f(c["diff"]),
             f"[{_f(c['ci95'][0])}, {_f(c['ci95'][1])}]"] for c in comps]
    return [f"Paired {what} differences (95% bootstrap interval over probes):", "",
            _table(["Row", "vs", "N", "Diff.", "95% CI"], rows), ""]


def locomo_table(rows: Mapping[str, Mapping[str, Any]], categories: Sequence[str]) -> str:
    """Tables 3-4 layout: per category F1 / BLEU-1 (+ judge accuracy when judged), then averages."""
    judged = any(r.get("judge_acc") for r in rows.values())
    header = ["Method"]
    for c in [*categories, "average"]:
        header += [f"{c} N", f"{c} F1", f"{c} BLEU-1"] + ([f"{c} Judge Acc."] if judged else [])
    out = []
    for name, r in rows.items():
        cells = [_label(name)]
        for c in [*categories, "overall"]:
            s = r["scores"].get(c, {})
            cells += [str(s.get("n", 0)), _f(s.get("f1"), 4), _f(s.get("bleu1"), 4)]
            if judged:
                cells.append(_f((r.get("judge_acc") or {}).get(c), 4))
        out.append(cells)
    return _table(header, out)


def render_locomo(results: Mapping[str, Any], out: Path) -> str:
    from .locomo_scoring import BLEU_CONVENTION

    rows = results["rows"]
    cats = [c for c in ("single-hop", "temporal", "open-domain", "multi-hop", "adversarial")
            if any(c in r["scores"] for r in rows.values())]
    md = ["# LoCoMo", "", _partial_note(results) + f"Samples: {', '.join(results.get('source', {}).get('samples', []))}. "
          "F1 is the official LoCoMo token F1 (category 5: abstention hit); " + BLEU_CONVENTION + ".", "",
          locomo_table(rows, cats), ""]
    ev = [[_label(n), _f(r.get("evidence_recall"))] for n, r in rows.items()]
    md += ["Evidence recall (share of gold evidence turns in the packet, answerable questions):", "",
           _table(["Method", "Evidence recall"], ev), ""]
    md += comparison_lines(results, "official F1")
    text = "\n".join(md)
    (out / "report.md").write_text(text, encoding="utf-8")
    labels = [*cats, "average"]
    write_chart(out / "report.png", "LoCoMo F1 by category" + (" (partial)" if results.get("partial") else ""), labels,
                {_label(n): [r["scores"].get(c if c != "average" else "overall", {}).get("f1") for c in labels]
                 for n, r in rows.items()})
    return text


def write_chart(path: Path, title: str, metrics: Sequence[str], series: Mapping[str, Sequence[float | None]]) -> None:
    """Grouped bars, one group per metric, one bar per row; missing values drawn as 0 and marked n/a."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = max(len(series), 1)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(metrics)), 3.8), dpi=110)
    for i, (name, vals) in enumerate(series.items()):
        xs = [j + (i - (n - 1) / 2) * width for j in range(len(metrics))]
        ys = [0.0 if v is None else float(v) for v in vals]
        bars = ax.bar(xs, ys, width=width, label=name)
        for b, v in zip(bars, vals):
            ax.annotate("n/a" if v is None else f"{v:.2f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(metrics)))
    ax.set_xticklabels(metrics, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.08)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
