#!/usr/bin/env python3
"""views-tree: every view of one trace draws the same call tree.

    views-tree.py CALLS.tsv LOG CHROME.json GRAPH.tsv FOLDED PROFILE.tsv

The files are litifut-postproc's views of one trace (or directory), all
with the same filters: the calls TSV (--format=tsv, with its parent
column), the log (the default view), Chrome JSON (--format=chrome), the
call graph and the profile as TSV (--graph --format=tsv, --profile
--format=tsv) and the folded stacks (--format=folded).

The Chrome JSON gives the tree with exact times: per thread, a frame per
begin event (args.call false: a function entered without a traced call),
ended by its end event, nested as the events nest.  Then:
  - calls TSV: its rows are that tree's call frames (signal deliveries,
    their handlers' entries and the C library's callbacks, args.entry,
    are no rows), in the same order, each
    row's parent the nearest call frame around it, and the names alike
    (a C symbol as its function's name);
  - log: its lines are the same frames, in the same order, at the same
    depths, with the same names, "(untraced)" exactly for the frames
    that are no call, and each caller's name the frame below's
    ("(thread)", "(callback)": an entry with none);
  - graph: each edge (the frame below's function, the frame's function;
    "(root)" for a thread's first) has the tree's calls, total (of the
    callee's outermost frames) and self time;
  - folded: each path's self time is the tree's;
  - profile: each function's calls, total (outermost frames only) and
    self time are the tree's.
Functions are told apart by name and file.  Prints one line and exits
0 if all agree; else the first difference of each view, exit 1.  The
tree these are checked against is checked against the oracle by
oracle-compare --tree (the calls TSV's parents).
"""
import json
import re
import sys

DEPTH_CAP = 256     # postproc/view.h VIEW_DEPTH_CAP


def ns_of(ts):
    """ "123.456" microseconds as integer ns (exact: three decimals) """
    whole, _, frac = ts.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


class Frame:
    __slots__ = ("name", "cat", "start", "end", "call", "parent", "depth", "kids_ns",
                 "signal", "handler", "entry", "outermost")


def read_chrome(path):
    """per (pid, tid): its frames in begin order"""
    threads, stacks = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if not line.startswith('{"ph":"B"') and not line.startswith('{"ph":"E"'):
                continue
            ts = re.search(r'"ts":([0-9.]+)', line).group(1)
            ev = json.loads(re.sub(r'"ts":[0-9.]+', '"ts":0', line))
            key = (ev["pid"], ev["tid"])
            stack = stacks.setdefault(key, [])
            frames = threads.setdefault(key, [])
            if ev["ph"] == "B":
                fr = Frame()
                fr.name, fr.cat, fr.start = ev["name"], ev.get("cat", ""), ns_of(ts)
                fr.end = None
                fr.call = ev.get("args", {}).get("call", True)
                fr.entry = ev.get("args", {}).get("entry")
                fr.parent = stack[-1] if stack else None
                fr.depth = len(stack)
                fr.kids_ns = 0
                fr.signal = fr.name.startswith("<signal ")
                fr.handler = fr.parent is not None and fr.parent.signal and fr.call
                fr.outermost = not any(a.name == fr.name and a.cat == fr.cat for a in stack)
                stack.append(fr)
                frames.append(fr)
            else:
                fr = stack.pop()
                fr.end = ns_of(ts)
                if stack:
                    stack[-1].kids_ns += fr.end - fr.start
    for key, stack in stacks.items():
        if stack:
            sys.exit("views-tree: %s: thread %s has frames never ended" % (path, key))
    return threads


def bare(fr):
    """the function's name without " (file)", and its file"""
    suffix = " (" + fr.cat + ")"
    name = fr.name[:-len(suffix)] if fr.name.endswith(suffix) else fr.name
    return name, fr.cat


def base(path):
    return path.rsplit("/", 1)[-1]


def tsv_rows(path):
    """Each row of a TSV file with a header line, as {column: value}."""
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            yield dict(zip(head, line.rstrip("\n").split("\t")))


problems = []


def problem(view, text):
    if not any(p.startswith(view + ":") for p in problems):
        problems.append("%s: %s" % (view, text))


def check_calls(path, threads):
    rows = {}
    for r in tsv_rows(path):
        rows.setdefault(int(r["tid"]), []).append((int(r["seq"]), r["callee_sym"], r["parent"]))
    n = 0
    for (pid, tid), frames in threads.items():
        calls = [fr for fr in frames if fr.call and not fr.signal and not fr.handler and not fr.entry]
        index = {id(fr): i for i, fr in enumerate(calls)}
        mine = rows.get(tid, [])
        if len(mine) != len(calls):
            problem("calls", "thread %d: %d rows, the tree has %d calls" % (tid, len(mine), len(calls)))
            continue
        at = {seq: i for i, (seq, _, _) in enumerate(mine)}
        for i, (fr, (seq, sym, parent)) in enumerate(zip(calls, mine)):
            p = fr.parent
            while p is not None and id(p) not in index:
                p = p.parent
            want = index[id(p)] if p is not None else None
            got = at.get(int(parent)) if parent != "-" else None
            name = re.sub(r"\+0x[0-9a-f]+$", "", sym)
            # (a callee without a symbol: "?" in the TSV, its address in
            # the tree, as report.c documents: riscv64 crt1.o's load_gp,
            # which .preinit_array names)
            nameless = name == "?" and bare(fr)[0].startswith("0x")
            if got != want or (not name.startswith("_Z") and name != bare(fr)[0] and not nameless):
                problem("calls", "thread %d row %d (seq %d, %s): parent row %s, the tree's %s (%s)"
                        % (tid, i, seq, sym, got, want, fr.name))
                break
        n += len(calls)
    return n


LOG_LINE = re.compile(r"^ *[0-9.]+ (.{11}) +([0-9]+)( +)(.*)$")


def check_log(path, threads):
    by_tid = {}
    for (pid, tid), frames in threads.items():
        by_tid.setdefault(tid, []).extend(frames)
    got, stacks = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = LOG_LINE.match(line.rstrip("\n"))
            if not m:
                problem("log", "a line the log should not have: %r" % line)
                return
            tid, indent, text = int(m.group(2)), len(m.group(3)), m.group(4)
            depth = (indent - 2) // 2
            text = re.sub(r" \(still open at the end\)$", "", text)
            d = re.match(r"^\[depth ([0-9]+)\] (.*)$", text)
            if d:
                depth, text = int(d.group(1)), d.group(2)
            stack = stacks.setdefault(tid, [])
            seq = got.setdefault(tid, [])
            if text.startswith("} /* ") or text == "</signal>":
                if not stack:
                    problem("log", "thread %d: a block closes that never opened: %r" % (tid, line))
                    return
                top = stack.pop()
                if text != "</signal>" and text != "} /* %s */" % top[1]:
                    problem("log", "thread %d: %r closes %s" % (tid, line, top[1]))
                    return
                continue
            if text.startswith("<signal ") and " -> " not in text:
                caller, callee, opens = None, text, True
            else:
                caller, _, callee = text.partition(" -> ")
                if caller.startswith("(jump) "):    # a tail jump's callee: a call of it
                    caller = caller[len("(jump) "):]
                opens = callee.endswith(" {") or callee.endswith(" { /* open when the ring's records start */")
                callee = re.sub(r" \{( /\* open when the ring's records start \*/)?$", "", callee)
            call = caller not in ("(untraced)", "(jump)")
            entered = caller in ("(thread)", "(callback)")     # (an entry with no frame below)
            if entered and stack:
                problem("log", "thread %d: %r inside a frame" % (tid, line))
                return
            if caller is not None and stack and call and caller != stack[-1][1]:
                problem("log", "thread %d: %r: the caller is not the frame below (%s)"
                        % (tid, line, stack[-1][1]))
                return
            if depth != len(stack) and len(stack) <= DEPTH_CAP:
                problem("log", "thread %d: %r at depth %d, inside %d blocks" % (tid, line, depth, len(stack)))
                return
            seq.append((len(stack), callee, call or caller is None))
            if opens:
                stack.append((len(stack), callee))
    for tid, frames in by_tid.items():
        want = [(fr.depth, fr.name, fr.call) for fr in frames]
        mine = got.get(tid, [])
        for i, (a, b) in enumerate(zip(want, mine)):
            if a != b:
                problem("log", "thread %d, frame %d: the log has %s, the tree %s" % (tid, i, b, a))
                break
        else:
            if len(want) != len(mine):
                problem("log", "thread %d: %d frames, the tree has %d" % (tid, len(mine), len(want)))


def add(table, key, calls, total, self_ns):
    c, t, s = table.get(key, (0, 0, 0))
    table[key] = (c + calls, t + total, s + self_ns)


def tree_tables(threads):
    edges, funcs, folded = {}, {}, {}
    for frames in threads.values():
        for fr in frames:
            dur = fr.end - fr.start
            self_ns = dur - fr.kids_ns
            total = dur if fr.outermost else 0
            key = bare(fr)
            below = bare(fr.parent) if fr.parent is not None else ("(root)", "")
            add(edges, below + key, 1 if fr.call and not fr.signal else 0, total, self_ns)
            add(funcs, key, 1 if fr.call and not fr.signal else 0, total, self_ns)
            if fr.depth < DEPTH_CAP:
                path, p = [], fr
                while p is not None:
                    path.append(p.name.replace(";", ":"))
                    p = p.parent
                k = ";".join(reversed(path))
                folded[k] = folded.get(k, 0) + self_ns
    return edges, funcs, folded


def compare(view, want, got):
    for key in sorted(set(want) | set(got), key=str):
        if want.get(key) != got.get(key):
            problem(view, "%s: the view has %s, the tree %s" % (key, got.get(key), want.get(key)))
            return


def read_tsv(path, key_cols, value_cols):
    table = {}
    for r in tsv_rows(path):
        key = tuple(base(r[c]) if c.endswith("obj") or c == "object" else r[c] for c in key_cols)
        vals = tuple(int(r[c]) if r[c] else 0 for c in value_cols)
        old = table.get(key, (0,) * len(vals))
        table[key] = tuple(a + b for a, b in zip(old, vals))
    return table


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    calls_tsv, log, chrome, graph, folded_path, profile = sys.argv[1:]
    threads = read_chrome(chrome)
    n = check_calls(calls_tsv, threads)
    check_log(log, threads)
    edges, funcs, folded = tree_tables(threads)
    got = read_tsv(graph, ("caller", "caller_obj", "callee", "callee_obj"),
                   ("calls", "total_ns", "self_ns"))
    compare("graph", {(k[0], k[1] if k[0] != "(root)" else "", k[2], k[3]): v for k, v in edges.items()},
            {(k[0], k[1] if k[0] != "(root)" else "", k[2], k[3]): v for k, v in got.items()})
    compare("profile", funcs, read_tsv(profile, ("function", "object"), ("calls", "total_ns", "self_ns")))
    mine = {}
    with open(folded_path, encoding="utf-8") as f:
        for line in f:
            path, _, value = line.rstrip("\n").rpartition(" ")
            mine[path] = mine.get(path, 0) + int(value)
    compare("folded", {k: v for k, v in folded.items() if v}, {k: v for k, v in mine.items() if v})
    frames = sum(len(v) for v in threads.values())
    if problems:
        print("views-tree: " + "; ".join(problems))
        sys.exit(1)
    print("views-tree: %d frames (%d calls) in %d threads: the log, calls TSV, graph, folded "
          "stacks and profile draw one tree" % (frames, n, len(threads)))


main()
