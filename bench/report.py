#!/usr/bin/env python3
"""report.py — turns the runs of scripts/bench.sh into tables, CSV, plots and
SUMMARY.md.  Python 3 standard library only (gnuplot draws the plots).

    python3 bench/report.py --work bench/work --results bench/results

Reads  <work>/meta.txt    key=value facts about the session
       <work>/runs.tsv    one line per run (which MPI, which benchmark, exit code, output files)
       <work>/probes.tsv  the cache-line probe taken before each group of runs
Writes <results>/<session>.csv and latest.csv   every run, every size
       <results>/<benchmark>.png                medians vs size, one line per MPI
       <results>/SUMMARY.md                     machine, versions, bindings, tables, plots
and prints the tables.
"""
import argparse
import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

# smartmap-flat and openmpi-han: extra columns of the inter-node collectives
# (smartmap without its hierarchy; Open MPI with coll/han).  The ratio is
# always smartmap against the best peer; "flat/hier" is smartmap-flat over
# smartmap (> 1: the hierarchy is faster, for a time).
# smartmap-ucx: every inter-node benchmark over smartmap's UCX engine (the
# smartmap column is its libfabric engine); "UCX ratio" is it over the best peer.
MPIS = ["smartmap", "smartmap-ucx", "smartmap-flat", "openmpi", "openmpi-han", "mpich"]
PEERS = ["openmpi", "openmpi-han", "mpich"]
LABEL = {"smartmap": "smartmap", "smartmap-ucx": "smartmap UCX", "smartmap-flat": "smartmap flat", "openmpi": "Open MPI",
         "openmpi-han": "Open MPI han", "mpich": "MPICH"}

# variant base name -> (metric key in RESULT, unit label, higher is better?, description)
METRICS = {
    "latency": ("usec", "usec", False, "one-way latency (half a ping-pong round trip)"),
    "bw": ("mbps", "MB/s", True, "unidirectional bandwidth, window of 64 non-blocking sends"),
    "bibw": ("mbps", "MB/s", True, "bidirectional bandwidth, both directions summed"),
    "msgrate": ("msgrate", "M msg/s", True, "message rate, window of 64, messages per second"),
    "barrier": ("usec", "usec", False, "MPI_Barrier time per call"),
    "bcast": ("usec", "usec", False, "MPI_Bcast from rank 0, time per call (mean over ranks)"),
    "reduce": ("usec", "usec", False, "MPI_Reduce float sum to rank 0, time per call (mean over ranks)"),
    "allreduce": ("usec", "usec", False, "MPI_Allreduce float sum, time per call (mean over ranks)"),
    "allgather": ("usec", "usec", False, "MPI_Allgather, size bytes per rank, time per call (mean over ranks)"),
    "alltoall": ("usec", "usec", False, "MPI_Alltoall, size bytes per pair, time per call (mean over ranks)"),
    "gather": ("usec", "usec", False, "MPI_Gather to rank 0, size bytes per rank, time per call (mean over ranks)"),
    "scatter": ("usec", "usec", False, "MPI_Scatter from rank 0, size bytes per rank, time per call (mean over ranks)"),
    "reduce_scatter": ("usec", "usec", False, "MPI_Reduce_scatter_block float sum, size bytes per rank (the vector np times that), time per call (mean over ranks)"),
    "scan": ("usec", "usec", False, "MPI_Scan float sum, time per call (mean over ranks)"),
    "put-lat-alloc": ("usec", "usec", False, "MPI_Put + MPI_Win_flush (lock_all epoch), MPI_Win_allocate window"),
    "put-bw-alloc": ("mbps", "MB/s", True, "64 x MPI_Put per MPI_Win_flush (lock_all epoch), MPI_Win_allocate window"),
    "put-lat-create": ("usec", "usec", False, "MPI_Put + MPI_Win_flush (lock_all epoch), MPI_Win_create window over the program's buffer"),
    "put-bw-create": ("mbps", "MB/s", True, "64 x MPI_Put per MPI_Win_flush (lock_all epoch), MPI_Win_create window over the program's buffer"),
    "get-lat-alloc": ("usec", "usec", False, "MPI_Get + MPI_Win_flush (lock_all epoch), MPI_Win_allocate window"),
    "get-bw-alloc": ("mbps", "MB/s", True, "64 x MPI_Get per MPI_Win_flush (lock_all epoch), MPI_Win_allocate window"),
    "get-lat-create": ("usec", "usec", False, "MPI_Get + MPI_Win_flush (lock_all epoch), MPI_Win_create window over the program's buffer"),
    "get-bw-create": ("mbps", "MB/s", True, "64 x MPI_Get per MPI_Win_flush (lock_all epoch), MPI_Win_create window over the program's buffer"),
    "put-lat-fence-alloc": ("usec", "usec", False, "MPI_Put + MPI_Win_fence on both ranks, MPI_Win_allocate window"),
    "acc-lat-alloc": ("usec", "usec", False, "MPI_Accumulate (MPI_LONG, MPI_SUM) + MPI_Win_flush, MPI_Win_allocate window"),
    "fop-lat-alloc": ("usec", "usec", False, "MPI_Fetch_and_op (MPI_LONG, MPI_SUM) + MPI_Win_flush, MPI_Win_allocate window"),
    "cas-lat-alloc": ("usec", "usec", False, "MPI_Compare_and_swap (MPI_LONG) + MPI_Win_flush, MPI_Win_allocate window"),
    "put-lat-fence-create": ("usec", "usec", False, "MPI_Put + MPI_Win_fence on both ranks, MPI_Win_create window over the program's buffer"),
    "acc-lat-create": ("usec", "usec", False, "MPI_Accumulate (MPI_LONG, MPI_SUM) + MPI_Win_flush, MPI_Win_create window over the program's buffer"),
    "fop-lat-create": ("usec", "usec", False, "MPI_Fetch_and_op (MPI_LONG, MPI_SUM) + MPI_Win_flush, MPI_Win_create window over the program's buffer"),
    "cas-lat-create": ("usec", "usec", False, "MPI_Compare_and_swap (MPI_LONG) + MPI_Win_flush, MPI_Win_create window over the program's buffer"),
}
VARY_NOTE = " — --vary: the data changes every iteration (refill not timed)"

CSV_FIELDS = ["session", "date", "host", "rep", "group", "run", "variant", "bench", "vary", "mpi", "np",
              "size", "iters", "usec", "min_usec", "max_usec", "mbps", "msgrate", "metric", "value",
              "probe_before_ns", "probe_after_ns", "probe_ns", "probe_best_ns", "slow", "used",
              "status", "error", "rc", "wall_s"]


def fmt_ratio(r):
    return "%.2f" % r if r < 10 else "%.1f" % r if r < 100 else "%.0f" % r


def read_meta(path):
    meta = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    except OSError:
        pass
    return meta


def read_tsv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f, delimiter="\t"))
    except OSError:
        return []


def to_float(s):
    try:
        v = float(s)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def base_of(variant):
    return variant[:-5] if variant.endswith("-vary") else variant


RESULT_RE = re.compile(r"RESULT\s+(.*)$")


def parse_results(path):
    rows = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = RESULT_RE.search(line)
                if not m:
                    continue
                kv = dict(p.split("=", 1) for p in m.group(1).split() if "=" in p)
                rows.append(kv)
    except OSError:
        pass
    return rows


# Lines a launcher prints about a failing rank; the rank's own message says more.
LAUNCHER_RE = re.compile(r"^(smrun:|mpiexec|mpirun|prterun|\[mpiexec@|\[proxy:|Primary job|=+\s*BAD TERMINATION|"
                         r"YOUR APPLICATION TERMINATED|Child job|HYDU_|HYD_|forrtl:)", re.I)


def first_error_line(err_path, out_path, rc, note):
    """The first meaningful stderr line: banner lines of dashes and the
    launcher's own lines are skipped when a rank said something."""
    if note and note.startswith("timed out"):
        return note
    for path in (err_path, out_path):
        lines = []
        try:
            with open(path, errors="replace") as f:
                for line in f:
                    line = line.strip()
                    if not re.search(r"[A-Za-z0-9]", line) or line.startswith("#") or line.startswith("RESULT"):
                        continue
                    lines.append(line)
        except OSError:
            pass
        if lines:
            own = [ln for ln in lines if not LAUNCHER_RE.search(ln)]
            return (own or lines)[0][:160]
    if note:
        return note
    return "exit code %s, no output" % rc


def fmt_value(v, unit):
    if v is None:
        return "n/a"
    if unit == "M msg/s":
        return "%.2f" % (v / 1e6)
    if unit == "MB/s":
        return "%.0f" % v
    if v < 10:
        return "%.2f" % v
    if v < 100:
        return "%.1f" % v
    return "%.0f" % v


def fmt_size(s):
    if s is None:
        return "-"
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if s >= n and s % n == 0:
            return "%d%s" % (s // n, unit)
    return str(s)


def main():
    try:
        sys.stdout.reconfigure(errors="replace")
    except AttributeError:
        pass
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="bench/work")
    ap.add_argument("--results", default="bench/results")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args()

    meta = read_meta(os.path.join(args.work, "meta.txt"))
    runs = read_tsv(os.path.join(args.work, "runs.tsv"))
    probes = read_tsv(os.path.join(args.work, "probes.tsv"))
    if not runs:
        print("report: no runs recorded in %s" % args.work, file=sys.stderr)
        return 1
    session = meta.get("session", "session")
    host = meta.get("host", "")
    slow_factor = to_float(meta.get("slow_factor")) or 2.0
    mpis = [m for m in meta.get("mpis", " ".join(MPIS)).split() if m in MPIS] or MPIS

    probe_by_group = {int(p["group"]): to_float(p["one_way_ns"]) for p in probes}
    valid_probes = [v for v in probe_by_group.values() if v is not None]
    probe_best = min(valid_probes) if valid_probes else None
    slow_limit = probe_best * slow_factor if probe_best else None

    # ---- every run, every size -> CSV rows
    rows = []
    variants = []                        # in run order
    for r in runs:
        variant = r["variant"]
        if variant not in variants:
            variants.append(variant)
        g = int(r["group"])
        pb, pa = probe_by_group.get(g), probe_by_group.get(g + 1)
        known = [p for p in (pb, pa) if p is not None]
        probe = max(known) if known else None
        slow = 1 if (slow_limit is not None and probe is not None and probe > slow_limit) else 0
        bench = base_of(variant)
        metric, unit, higher, _ = METRICS.get(bench, ("usec", "usec", False, ""))
        base = {"session": session, "date": meta.get("date", ""), "host": host, "rep": r["rep"],
                "group": g, "run": r["idx"], "variant": variant, "bench": bench, "vary": r["vary"],
                "mpi": r["mpi"], "np": meta.get("np_" + variant, meta.get("np", "")), "metric": metric,
                "probe_before_ns": "" if pb is None else pb, "probe_after_ns": "" if pa is None else pa,
                "probe_ns": "" if probe is None else probe,
                "probe_best_ns": "" if probe_best is None else probe_best,
                "slow": slow, "rc": r["rc"], "wall_s": r["wall_s"]}
        results = parse_results(r["out"]) if r["rc"] != "-1" else []
        for kv in results:
            row = dict(base)
            row.update({"size": kv.get("size", ""), "iters": kv.get("iters", ""),
                        "usec": kv.get("usec", ""), "min_usec": kv.get("min_usec", ""),
                        "max_usec": kv.get("max_usec", ""), "mbps": kv.get("mbps", ""),
                        "msgrate": kv.get("msgrate", ""), "value": kv.get(metric, ""),
                        "status": "ok", "error": ""})
            rows.append(row)
        if r["rc"] != "0" or not results or r.get("note"):
            row = dict(base)
            if r["rc"] == "-1" and r.get("note", "").startswith("timed out"):
                status, err = "timeout", r["note"]
            elif r["rc"] == "-1":
                status = "skipped"
                err = r.get("note") or "not built"
            elif r.get("note", "").startswith("timed out"):
                status, err = "timeout", r["note"]
            elif r.get("note") == "interrupted":
                status, err = "interrupted", "interrupted"
            elif r["rc"] == "0":
                status, err = "failed", "no RESULT line in the output"
            else:
                status = "failed"
                err = first_error_line(r["err"], r["out"], r["rc"], r.get("note", ""))
            row.update({"size": "", "iters": "", "usec": "", "min_usec": "", "max_usec": "", "mbps": "",
                        "msgrate": "", "value": "", "status": status, "error": err})
            rows.append(row)

    # ---- statistics per (variant, mpi, size)
    cells = {}          # (variant, mpi, size) -> dict
    failures = {}       # (variant, mpi) -> [error, ...]
    nruns = {}          # (variant, mpi) -> number of runs
    for r in runs:
        key = (r["variant"], r["mpi"])
        nruns[key] = nruns.get(key, 0) + 1
    for row in rows:
        if row["status"] != "ok":
            failures.setdefault((row["variant"], row["mpi"]), []).append(row["error"])
            continue
        v = to_float(row["value"])
        try:
            size = int(row["size"])
        except ValueError:
            continue
        if v is None:
            continue
        c = cells.setdefault((row["variant"], row["mpi"], size), {"fast": [], "all": [], "rows": []})
        c["all"].append(v)
        c["rows"].append(row)
        if not row["slow"]:
            c["fast"].append(v)
    for c in cells.values():
        n = len(c["all"])
        enough = min(3, math.ceil(n / 2))
        if len(c["fast"]) >= enough and len(c["fast"]) < n:
            c["used"], c["excluded"] = c["fast"], n - len(c["fast"])
        else:
            c["used"], c["excluded"] = c["all"], 0
        c["slow_included"] = c["excluded"] == 0 and len(c["fast"]) < n
        c["median"] = statistics.median(c["used"])
        c["min"], c["max"] = min(c["used"]), max(c["used"])
        for row in c["rows"]:
            row["used"] = 0 if (row["slow"] and c["excluded"]) else 1

    # ---- CSV
    os.makedirs(args.results, exist_ok=True)
    csv_path = os.path.join(args.results, "%s.csv" % session)
    for path in (csv_path, os.path.join(args.results, "latest.csv")):
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
            w.writeheader()
            for row in rows:
                row.setdefault("used", 0)
                w.writerow(row)

    # ---- tables
    text_tables, md_tables = [], []
    slow_runs = len({(r["group"], r["run"]) for r in rows if r["slow"]})
    for variant in variants:
        bench = base_of(variant)
        metric, unit, higher, desc = METRICS.get(bench, ("usec", "usec", False, variant))
        if variant.endswith("-vary"):
            desc += VARY_NOTE
        better = "higher is better" if higher else "lower is better"
        ratio_note = ("ratio = smartmap / best peer: > 1 means smartmap is faster" if higher
                      else "ratio = smartmap / best peer: < 1 means smartmap is faster")
        if any(nruns.get((variant, m)) for m in ("smartmap-ucx",)):
            ratio_note += "; UCX ratio = smartmap over its UCX engine / best peer"
        if any(nruns.get((variant, m)) for m in ("smartmap-flat",)):
            ratio_note += "; flat/hier = smartmap flat / smartmap (time): > 1 means the hierarchy is faster"
        title = "%s — %s\n  unit: %s, %s; %s" % (variant, desc, unit, better, ratio_note)
        sizes = sorted({s for (v, m, s) in cells if v == variant})
        # The columns that ran this benchmark (the extra ones run only some).
        vmpis = [m for m in mpis if nruns.get((variant, m))]
        flat = "smartmap-flat" in vmpis and "smartmap" in vmpis
        ucx = "smartmap-ucx" in vmpis
        notes = []
        for m in vmpis:
            errs = failures.get((variant, m), [])
            if not errs:
                continue
            total = nruns.get((variant, m), 0)
            first = errs[0]
            if not any((variant, m, s) in cells for s in sizes):
                notes.append("%s: n/a (failed: %s) [%d of %d runs]" % (m, first, len(errs), total))
            else:
                notes.append("%s: %d of %d runs failed or were cut short (first: %s)" % (m, len(errs), total, first))
        header = (["size"] + [LABEL[m] for m in vmpis] + (["flat/hier"] if flat else []) + ["ratio"]
                  + (["UCX ratio"] if ucx else []))
        table = []
        starred = False
        for s in sizes or [None]:
            line = [fmt_size(s)]
            med = {}
            for m in vmpis:
                c = cells.get((variant, m, s))
                if c is None:
                    errs = failures.get((variant, m))
                    line.append("n/a (failed)" if errs else "n/a")
                    continue
                med[m] = c["median"]
                cell = "%s (%s–%s)" % (fmt_value(c["median"], unit), fmt_value(c["min"], unit),
                                       fmt_value(c["max"], unit))
                if c["slow_included"]:
                    cell += " *"
                    starred = True
                if len(c["used"]) != nruns.get((variant, m), 0):
                    cell += " [n=%d]" % len(c["used"])
                line.append(cell)
            if flat:
                if med.get("smartmap", 0) > 0 and "smartmap-flat" in med:
                    g = med["smartmap-flat"] / med["smartmap"]
                    line.append("%.2f" % (1 / g if higher else g))
                else:
                    line.append("–")
            peers = [med[p] for p in PEERS if p in med and med[p] > 0]
            if "smartmap" in med and peers:
                best = max(peers) if higher else min(peers)
                ratio = med["smartmap"] / best
                line.append(fmt_ratio(ratio))
            else:
                line.append("–")
            if ucx:
                line.append(fmt_ratio(med["smartmap-ucx"] / (max(peers) if higher else min(peers)))
                            if "smartmap-ucx" in med and peers else "–")
            table.append(line)
        excluded = sum(c["excluded"] for (v, m, s), c in cells.items() if v == variant)
        foot = []
        if excluded:
            foot.append("%d slow-state measurement(s) excluded from the medians" % excluded)
        if starred:
            foot.append("`*` too few fast runs: slow-state runs included")
        text_tables.append(render_text(title, header, table, notes, foot))
        md_tables.append(render_md(variant, desc, unit, better, ratio_note, header, table, notes, foot))

    out = []
    out.append("smartmap bench — %s on %s, np=%s, %s rep(s)%s" % (
        meta.get("date", ""), host, meta.get("np", "?"), meta.get("reps", "?"),
        ", QUICK" if meta.get("quick") == "1" else ""))
    out.append("cells: median (min–max) over the repetitions; the ratio compares medians.")
    if probe_best:
        out.append("probe: best %.1f ns one-way; runs with a probe above %.1f ns (%.3g x best) are slow: %d run(s) flagged"
                   % (probe_best, slow_limit, slow_factor, slow_runs))
    else:
        out.append("probe: not available, no slow-state detection")
    for m in mpis:
        st = meta.get("status_" + m, "ok")
        if st != "ok":
            out.append("%s: %s" % (m, st))
    print("\n".join(out) + "\n")
    print("\n\n".join(text_tables))

    # ---- plots
    plots = []
    if not args.no_plots:
        plots = make_plots(args, meta, variants, cells, mpis)

    # ---- SUMMARY.md
    write_summary(args, meta, csv_path, variants, md_tables, plots, probe_best, slow_limit, slow_factor,
                  slow_runs, valid_probes, mpis)
    print("\nCSV:     %s (and latest.csv)" % csv_path)
    print("summary: %s" % os.path.join(args.results, "SUMMARY.md"))
    if plots:
        print("plots:   %s" % ", ".join(os.path.join(args.results, p) for p in plots))
    return 0


def render_text(title, header, table, notes, foot):
    widths = [max(len(str(r[i])) for r in [header] + table) for i in range(len(header))]
    lines = [title]
    lines += ["  " + n for n in notes]
    sep = "  " + "-+-".join("-" * w for w in widths)
    lines.append("  " + " | ".join(h.rjust(w) if i in (0, len(header) - 1) else h.ljust(w)
                                   for i, (h, w) in enumerate(zip(header, widths))))
    lines.append(sep)
    for r in table:
        lines.append("  " + " | ".join(c.rjust(w) if i in (0, len(r) - 1) else c.ljust(w)
                                       for i, (c, w) in enumerate(zip(r, widths))))
    lines += ["  " + f.replace("`", "") for f in foot]
    return "\n".join(lines)


def render_md(variant, desc, unit, better, ratio_note, header, table, notes, foot):
    lines = ["### %s" % variant, "", "%s. Unit: %s, %s; %s." % (desc[0].upper() + desc[1:], unit, better, ratio_note), ""]
    for n in notes:
        lines.append("- %s" % n.replace("|", "\\|"))
    if notes:
        lines.append("")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---:" if i in (0, len(header) - 1) else "---" for i in range(len(header))) + "|")
    for r in table:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    if foot:
        lines.append("")
        lines += ["%s." % f for f in foot]
    return "\n".join(lines)


def make_plots(args, meta, variants, cells, mpis):
    gp = shutil.which("gnuplot")
    if not gp:
        print("plots skipped: gnuplot is not installed (scripts/install-deps.sh bench)", file=sys.stderr)
        return []
    plot_dir = os.path.join(args.work, "plot")
    os.makedirs(plot_dir, exist_ok=True)
    term = "pngcairo size 900,560 font 'sans,10'"
    try:
        t = subprocess.run([gp, "-e", "set terminal"], capture_output=True, text=True, timeout=20)
        if "pngcairo" not in (t.stdout + t.stderr):
            term = "png size 900,560"
    except (OSError, subprocess.SubprocessError):
        term = "png size 900,560"
    script = ["set terminal %s" % term, "set logscale xy", "set grid",
              "set key top left", "set xlabel 'message size (bytes)'",
              "set xtics (" + ", ".join("'%s' %d" % (fmt_size(1 << k), 1 << k) for k in range(0, 31, 2)) + ")"]
    made = []
    style = {"smartmap": "lc rgb '#d62728' lw 2 pt 7", "openmpi": "lc rgb '#1f77b4' lw 1.5 pt 5",
             "mpich": "lc rgb '#2ca02c' lw 1.5 pt 9", "smartmap-flat": "lc rgb '#ff9896' lw 1.5 dt 2 pt 6",
             "openmpi-han": "lc rgb '#17becf' lw 1.5 dt 2 pt 4",
             "smartmap-ucx": "lc rgb '#9467bd' lw 1.5 dt 3 pt 8"}
    for variant in variants:
        bench = base_of(variant)
        metric, unit, higher, desc = METRICS.get(bench, ("usec", "usec", False, variant))
        series = []
        for m in mpis:
            pts = sorted((s, c) for (v, mm, s), c in cells.items() if v == variant and mm == m and s > 0)
            if not pts:
                continue
            dat = os.path.join(plot_dir, "%s.%s.dat" % (variant, m))
            scale = 1e6 if unit == "M msg/s" else 1.0
            with open(dat, "w") as f:
                for s, c in pts:
                    f.write("%d %g %g %g\n" % (s, c["median"] / scale, c["min"] / scale, c["max"] / scale))
            series.append((m, dat))
        sizes = {s for (v, mm, s) in cells if v == variant and s > 0}
        if not series or len(sizes) < 2:
            continue
        png = "%s.png" % variant
        script.append("set output '%s'" % os.path.abspath(os.path.join(args.results, png)).replace("'", "''"))
        script.append("set title \"%s: %s\\nmedian of the runs, bars min-max; %s, np=%s, %s\"" % (
            variant, desc.replace('"', "'"), meta.get("host", ""), meta.get("np_" + variant, meta.get("np", "?")),
            meta.get("date", "")))
        script.append("set ylabel '%s (%s)'" % (unit, "higher is better" if higher else "lower is better"))
        parts = []
        for m, dat in series:
            d = os.path.abspath(dat).replace("'", "''")
            parts.append("'%s' using 1:2:3:4 with yerrorlines %s title '%s'" % (d, style[m], LABEL[m]))
        script.append("plot " + ", ".join(parts))
        made.append(png)
    if not made:
        return []
    gp_path = os.path.join(plot_dir, "plots.gp")
    with open(gp_path, "w", encoding="utf-8") as f:
        f.write("\n".join(script) + "\n")
    try:
        r = subprocess.run([gp, gp_path], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print("plots: gnuplot failed: %s" % (r.stderr.strip().splitlines() or ["?"])[0], file=sys.stderr)
            return []
    except (OSError, subprocess.SubprocessError) as e:
        print("plots: gnuplot failed: %s" % e, file=sys.stderr)
        return []
    return made


def md_cell(s):
    return re.sub(r"\s+", " ", str(s)).replace("|", "\\|")


def write_summary(args, meta, csv_path, variants, md_tables, plots, probe_best, slow_limit, slow_factor,
                  slow_runs, valid_probes, mpis):
    L = []
    L.append("# smartmap benchmark summary")
    L.append("")
    L.append("Produced by `make bench` (scripts/bench.sh + bench/report.py) on %s." % meta.get("date", "?"))
    L.append("The machine is noisy: compare the ratios of one run, never absolute times across runs.")
    if meta.get("part"):
        L.append("")
        L.append("Part: %s." % meta["part"])
    L.append("")
    L.append("## Machine and setup")
    L.append("")
    L.append("| item | value |")
    L.append("|---|---|")
    for k, label in (("host", "host"), ("cpu", "CPU"), ("ncpu", "CPUs available"), ("mem", "memory"),
                     ("os", "OS"), ("kernel", "kernel"), ("compiler", "compiler"),
                     ("cflags", "benchmark CFLAGS")):
        L.append("| %s | %s |" % (label, md_cell(meta.get(k, "?"))))
    L.append("| ranks per job | %s |" % meta.get("np", "?"))
    L.append("| repetitions | %s%s, interleaved %s |" % (
        meta.get("reps", "?"), " (QUICK: fewer sizes and iterations)" if meta.get("quick") == "1" else "",
        ", ".join(mpis)))
    L.append("| benchmark filter | `%s` |" % md_cell(meta.get("filter", ".")))
    L.append("| wall time of the runs | %s%s |" % (meta.get("elapsed", "?"),
                                                  " (interrupted)" if meta.get("interrupted") else ""))
    if probe_best:
        L.append("| cache-line probe | best %.1f ns one-way, median %.1f ns over %d probes; slow state = above %.1f ns "
                 "(%.3g x best): %d run(s) flagged, excluded from the medians where enough fast runs exist |" % (
                     probe_best, statistics.median(valid_probes), len(valid_probes), slow_limit, slow_factor,
                     slow_runs))
    else:
        L.append("| cache-line probe | not available |")
    L.append("")
    L.append("## MPIs")
    L.append("")
    L.append("| MPI | version | launcher | binding asked | binding seen | status |")
    L.append("|---|---|---|---|---|---|")
    for m in mpis:
        L.append("| %s | %s | `%s` | %s | %s | %s |" % tuple(md_cell(x) for x in (
            LABEL[m], meta.get("version_" + m, "?"), meta.get("launch_" + m, "?"),
            meta.get("binding_" + m, "?"), meta.get("bound_" + m, "?"), meta.get("status_" + m, "?"))))
    L.append("")
    L.append("## Results")
    L.append("")
    L.append("Cells: median (min–max) over the repetitions. `*`: too few fast runs, slow-state runs included. "
             "`[n=k]`: only k runs counted (slow runs excluded, or runs failed). "
             "Every run and size is in [%s](%s) (and `latest.csv`)." % (
                 os.path.basename(csv_path), os.path.basename(csv_path)))
    L.append("")
    L.append("\n\n".join(md_tables))
    L.append("")
    if plots:
        L.append("## Plots")
        L.append("")
        for p in plots:
            L.append("- [%s](%s)" % (p[:-4], p))
        L.append("")
        for p in plots:
            L.append("![%s](%s)" % (p[:-4], p))
            L.append("")
    # The other parts of the bench (subfolders with their own summary), and a
    # hand-written NOTES.md (where the time goes) kept across runs.
    subs = sorted(d for d in os.listdir(args.results)
                  if os.path.isfile(os.path.join(args.results, d, "SUMMARY.md")))
    if subs:
        L.append("## Other parts")
        L.append("")
        for d in subs:
            L.append("- [%s/](%s/SUMMARY.md)" % (d, d))
        L.append("")
    notes = os.path.join(args.results, "NOTES.md")
    if os.path.isfile(notes):
        L.append("## Notes")
        L.append("")
        with open(notes, encoding="utf-8") as f:
            L.append(f.read().rstrip())
        L.append("")
    with open(os.path.join(args.results, "SUMMARY.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    sys.exit(main())
