"""The gate's --print-profile output read back, for the conformance scripts."""


def read(stdout):
    """{"steps": [[name, ns, launches], ...], "rows": [[ns, instances, kind, name], ...]}:
    the epochs section (NVTX mode) and the rows, comment lines skipped."""
    out = {"steps": [], "rows": []}
    section = None
    for line in stdout.splitlines():
        if line.startswith("epoch_ns\t"):
            section = "epochs"
        elif line.startswith("total_ns\t"):
            section = "rows"
        elif line.startswith("#"):
            continue
        elif section == "epochs":
            n, launches, name = line.split("\t", 2)
            out["steps"].append([name, int(n), int(launches)])
        elif section == "rows":
            n, inst, kind, name = line.split("\t", 3)
            out["rows"].append([int(n), int(inst), kind, name])
    return out
