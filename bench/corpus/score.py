#!/usr/bin/env python3
"""Scores syncwatch-lint against the hand-labelled development corpus.

The labels (labels-*.tsv) were written by reading the code, before looking at the tool's
output: one row per (call site, rule) with the truth (warning / note / silent) and why.
The manifests (manifest-*.tsv) name each unit: repository, commit, path, extra flags.
The sources are not in this repository; bench/corpus/README.md says how to get them
into .extern/corpus/<owner>+<name>/.

  score.py [--lint PATH] [--corpus DIR] [--json OUT] [--set torch]

--set torch scores the PyTorch extension corpus instead (torch/manifest.tsv, torch/labels.tsv:
the two torch rules only). Each unit is analyzed through a compile database of the command
torch.utils.cpp_extension's build would write for it (nvcc for .cu, c++ for .cpp, torch's
standard flags, the headers of the torch wheel that tools/torch_headers.py fetches) plus the
manifest's flags; @SRC@ in them is the unit's repository folder.

Prints, per rule and overall:
  gate precision / recall: warnings only (what fails a CI run) against warning labels;
  all-findings precision / recall: warnings and notes against warning-or-note labels.
A finding on a site with no label row is counted apart ("unlabelled"), not as a false
alarm: the labellers covered every catalogued call, so these are rare and listed.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DIAG = re.compile(r'^(.*?):(\d+):(\d+): (warning|note|remark|error): (.*?)(?: \[(syncwatch-[a-z-]+)\])?$')


def read_tsv(pattern):
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, pattern))):
        with open(path) as f:
            header = None
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if header is None and parts[0] == 'repo':
                    header = parts
                    continue
                if len(parts) < 4:
                    continue
                rows.append(parts)
    return rows


def torch_flags():
    inc = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'torch_headers.py'), '--print-include'],
                         capture_output=True, text=True, check=True).stdout.strip()
    import sysconfig
    return ['-isystem', inc, '-isystem', inc + '/torch/csrc/api/include', '-isystem',
            sysconfig.get_paths()['include'], '-isystem', '/usr/local/cuda/include']


# What torch.utils.cpp_extension puts into every command of an extension's build (torch 2.x),
# besides the include folders: the host compiler's for .cpp files, nvcc's for .cu files.
TORCH_CFLAGS = ['-DTORCH_API_INCLUDE_EXTENSION_H', '-D_GLIBCXX_USE_CXX11_ABI=1', '-fPIC', '-std=c++17']
TORCH_NVCC_FLAGS = ['-DTORCH_API_INCLUDE_EXTENSION_H', '-D_GLIBCXX_USE_CXX11_ABI=1', '-D__CUDA_NO_HALF_OPERATORS__',
                    '-D__CUDA_NO_HALF_CONVERSIONS__', '-D__CUDA_NO_BFLOAT16_CONVERSIONS__',
                    '-D__CUDA_NO_HALF2_OPERATORS__', '--expt-relaxed-constexpr',
                    '-gencode=arch=compute_90,code=sm_90', '--compiler-options', "'-fPIC'", '-std=c++17']


def torch_database(src, root, includes, extra):
    """A compile database of one entry, as `ninja -t compdb` writes it from torch's build."""
    import shlex
    import tempfile
    cu = src.endswith('.cu')
    driver = ['/usr/local/cuda/bin/nvcc'] if cu else ['c++']
    args = driver + (TORCH_NVCC_FLAGS if cu else TORCH_CFLAGS) + includes + extra + ['-c', src, '-o', 'unit.o']
    d = tempfile.mkdtemp(prefix='sw-torch-unit.')
    with open(os.path.join(d, 'compile_commands.json'), 'w') as f:
        json.dump([{'directory': root, 'file': src, 'output': 'unit.o',
                    'command': ' '.join(a if a == "'-fPIC'" else shlex.quote(a) for a in args)}], f)
    return d


def run_lint(lint, corpus, repo, path, flags, common=(), torch=False):
    root = os.path.join(corpus, repo.replace('/', '+'))
    src = os.path.join(root, path)
    if not os.path.exists(src):
        return None, 'missing source %s' % src
    extra = [] if flags == '-' else flags.replace('@SRC@', root).split()
    db = None
    if torch:
        db = torch_database(src, root, list(common), extra)
        cmd = [lint, '-p', db, src]
    else:
        cmd = [lint, src, '--'] + list(common) + extra
    p = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if db:
        import shutil
        shutil.rmtree(db, ignore_errors=True)
    found, errors = set(), []
    for line in p.stdout.splitlines() + p.stderr.splitlines():
        m = DIAG.match(line)
        if not m:
            continue
        file, ln, _, sev, msg, rule = m.groups()
        if sev == 'error':
            errors.append(line)
            continue
        if not rule or sev not in ('warning', 'remark') and not (sev == 'note' and rule):
            continue
        rel = os.path.relpath(os.path.realpath(file), os.path.realpath(root))
        found.add((repo, rel, int(ln), rule, 'note' if sev in ('note', 'remark') else 'warning'))
    status = None
    if errors or p.returncode not in (0, 1):
        tail = p.stderr.strip().splitlines()[-1:] or ['']
        status = 'exit %d: %s' % (p.returncode, errors[0] if errors else tail[0])
    return found, status


def ratio(a, b):
    return a / b if b else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--lint', default=os.path.join(ROOT, 'build', 'analyzer', 'syncwatch-lint'))
    ap.add_argument('--corpus', default=os.path.join(ROOT, '.extern', 'corpus'))
    ap.add_argument('--json', help='write the figures and every mismatch here')
    ap.add_argument('--verbose', action='store_true', help='print every mismatch')
    ap.add_argument('-j', '--jobs', type=int, default=2, help='units analyzed at once (default 2)')
    ap.add_argument('--set', choices=['cuda', 'torch'], default='cuda',
                    help='cuda: labels-*.tsv (default); torch: the PyTorch extension corpus')
    args = ap.parse_args()
    torch = args.set == 'torch'
    common = torch_flags() if torch else []
    only = {'syncwatch-torch-current-stream', 'syncwatch-torch-host-sync'} if torch else None

    labels = {}
    for r in read_tsv('torch/labels.tsv' if torch else 'labels-*.tsv'):
        repo, path, line, call, rule, expect = r[:6]
        labels.setdefault((repo, path, int(line)), {})[rule] = (expect, r[6] if len(r) > 6 else '')
    units = read_tsv('torch/manifest.tsv' if torch else 'manifest-*.tsv')

    found, failures = set(), []
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda u: (u, run_lint(args.lint, args.corpus, u[0], u[2], u[3], common, torch)),
                                [u[:4] for u in units]))
    for (repo, commit, path, flags), (f, status) in results:
        if status:
            failures.append('%s/%s: %s' % (repo, path, status))
        if f:
            found |= {x for x in f if only is None or x[3] in only}

    by_rule = collections.defaultdict(collections.Counter)
    mismatches = []
    reported = {}
    for repo, path, line, rule, sev in found:
        reported[(repo, path, line, rule)] = sev
    for site, rules in labels.items():
        for rule, (expect, why) in rules.items():
            if rule == '-':
                continue
            sev = reported.get(site + (rule,))
            c = by_rule[rule]
            if expect == 'warning':
                c['gate_pos'] += 1
                c['gate_tp'] += sev == 'warning'
            if expect in ('warning', 'note'):
                c['all_pos'] += 1
                c['all_tp'] += sev is not None
            if sev is None and expect != 'silent':
                mismatches.append(('missed', site, rule, expect, why))
    for (repo, path, line, rule), sev in sorted(reported.items()):
        site = (repo, path, line)
        c = by_rule[rule]
        if site not in labels:
            c['unlabelled'] += 1
            mismatches.append(('unlabelled', site, rule, sev, ''))
            continue
        expect, why = labels[site].get(rule, ('silent', labels[site].get('-', ('', ''))[1]))
        c['all_found'] += 1
        c['all_fp'] += expect == 'silent'
        if sev == 'warning':
            c['gate_found'] += 1
            c['gate_fp'] += expect != 'warning'
        if expect == 'silent':
            mismatches.append(('false ' + sev, site, rule, expect, why))
        elif expect != sev:
            mismatches.append(('as ' + sev, site, rule, expect, why))

    total = collections.Counter()
    for c in by_rule.values():
        total.update(c)
    rows = sorted(by_rule.items()) + [('ALL', total)]
    print('%-30s %9s %9s %9s %9s %6s' % ('rule', 'gate P', 'gate R', 'all P', 'all R', 'unlab'))
    figures = {}
    for rule, c in rows:
        gp = ratio(c['gate_found'] - c['gate_fp'], c['gate_found'])
        gr = ratio(c['gate_tp'], c['gate_pos'])
        ap_ = ratio(c['all_found'] - c['all_fp'], c['all_found'])
        ar = ratio(c['all_tp'], c['all_pos'])
        figures[rule] = dict(c, gate_precision=gp, gate_recall=gr, all_precision=ap_, all_recall=ar)
        print('%-30s %4.2f %3d/%-3d %4.2f %2d/%-3d %4.2f %4.2f %3d/%-3d %6d' % (
            rule, gp, c['gate_found'] - c['gate_fp'], c['gate_found'], gr, c['gate_tp'], c['gate_pos'],
            ap_, ar, c['all_tp'], c['all_pos'], c['unlabelled']))
    print('units: %d, parsed: %d' % (len(units), len(units) - len(failures)))
    for f in failures:
        print('  parse failure:', f)
    if args.verbose:
        for kind, site, rule, expect, why in mismatches:
            print('  %-14s %s:%d %s (label %s) %s' % (kind, site[1], site[2], rule, expect, why))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'figures': figures, 'failures': failures,
                       'mismatches': [list(m[:1]) + list(m[1]) + list(m[2:]) for m in mismatches]}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
