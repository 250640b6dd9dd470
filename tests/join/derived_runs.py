"""Runs derived from a real recording, as run-to-run noise or a slower build would make them:
every time of a .swrec stretched by a factor from its first call's entry (CUPTI's "never"
time, 2**64 - 1, stays), records a test leaves out dropped. verify_test.py and gate_test.py
make their before/after runs with it from test_inputs/runtime/h200_runtime_probe.swrec."""


def first_enter(lines):
    return min(int(l.split("\t")[4]) for l in lines if l.startswith("C\t"))


def stretched(lines, factor, drop=lambda fields: False):
    """The recording's lines (a list, without newlines) with every time stretched by factor;
    records for which drop(fields) is true left out."""
    t0 = first_enter(lines)

    def s(v):
        v = int(v)
        return str(v if v == 2**64 - 1 else t0 + int((v - t0) * factor))
    out = []
    for l in lines:
        f = l.split("\t")
        if drop(f):
            continue
        if f[0] == "C":
            f[4], f[5] = s(f[4]), s(f[5])
        elif f[0] in ("K", "M", "Z"):
            f[3], f[4] = s(f[3]), s(f[4])
        elif f[0] == "T":
            f[1] = s(f[1])
        out.append("\t".join(f))
    return out
