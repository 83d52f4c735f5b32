#!/usr/bin/env python3
"""Time edit -> re-indexed (and searchable) under `braid index --watch`.

usage: scripts/watch-latency.py BRAID INDEX VAULT N [extra braid flags...]

INDEX must already index VAULT (braid --index INDEX index VAULT); the
notes of VAULT are appended to, so point it at a copy. Appends a line to
one note at a time, waits for the watch's "re-indexed" log line on
stderr, and prints each edit's wall time (the write to the log line, the
debounce included) and the run's own time, then their medians."""
import os, re, subprocess, sys, time, select

braid, index, vault, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
extra = sys.argv[5:]
notes = []
for root, dirs, files in os.walk(vault):
    dirs[:] = [d for d in dirs if not d.startswith('.')]
    for f in files:
        if f.endswith('.md'):
            notes.append(os.path.join(root, f))
notes.sort()
p = subprocess.Popen([braid, '--index', index, *extra, 'index', '--watch'], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, bufsize=1)
line_re = re.compile(r're-indexed .* in ([0-9.]+)(ms|s|µs)')
def wait_line(timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([p.stderr], [], [], max(0, end - time.monotonic()))
        if not r:
            break
        l = p.stderr.readline()
        if not l:
            break
        m = line_re.search(l)
        if m:
            v = float(m.group(1)) * {'ms': 1, 's': 1000, 'µs': 0.001}[m.group(2)]
            return l.strip(), v
    return None, None
def edit(i):
    note = notes[(i * 37) % len(notes)]
    with open(note, 'a') as f:
        f.write(f"\nwatchprobe{i} edited line\n")
    return note
# warm up: until the watch is up, an edit may go unseen
i = 0
while True:
    edit(1000 + i)
    l, _ = wait_line(5)
    i += 1
    if l:
        break
time.sleep(1.0)
# drain
wait_line(0.5)
walls, tooks = [], []
for k in range(n):
    t0 = time.monotonic()
    edit(k)
    l, took = wait_line(60)
    t1 = time.monotonic()
    if l is None:
        print("no re-index line for edit", k, file=sys.stderr); break
    walls.append((t1 - t0) * 1000); tooks.append(took)
    print(f"edit {k}: write->reindexed {walls[-1]:.0f} ms, run took {took:.0f} ms | {l}")
    time.sleep(0.3)
p.terminate(); p.wait()
walls.sort(); tooks.sort()
med = lambda xs: xs[len(xs)//2]
print(f"MEDIAN write->reindexed {med(walls):.0f} ms (min {walls[0]:.0f}, max {walls[-1]:.0f}); run took median {med(tooks):.0f} ms (min {tooks[0]:.0f}) over {len(walls)} edits")
