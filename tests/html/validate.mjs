// Every kind of page the gate writes, checked by a validator: the --html
// golden expectations (PASS, FAIL with hostile names, INCONCLUSIVE, ERROR,
// a batch) and a dashboard made here from a 12-night history, through
// html-validate (npm; its recommended rules, long-title off: a <title> is
// cut to 60 characters, which html-validate counts before character
// references are decoded), and tests/html/check_pages.py (the policy and
// its hashes, nothing loaded, links, every SVG well-formed for xmllint).
//
// Environment: GATE, GENTRACE, SRCDIR; NODE_MODULES as in browser.mjs.
// Exit 77 (skipped) without html-validate, except under CI=true.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { GATE, GENTRACE, SRCDIR } = process.env;
const NODE_MODULES = process.env.NODE_MODULES || path.join(SRCDIR, '.cache', 'node', 'node_modules');
const cli = path.join(NODE_MODULES, 'html-validate', 'bin', 'html-validate.mjs');
if (!fs.existsSync(cli)) {
    if (process.env.CI === 'true') {
        console.error(`html-validate: not in ${NODE_MODULES}, and under CI=true this suite must run`);
        process.exit(1);
    }
    console.log(`html-validate: skipped: not in ${NODE_MODULES} (ci/test.sh installs it)`);
    process.exit(77);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-validate-'));
const env = { ...process.env, GATE, GENTRACE };
const history = path.join(work, 'h.jsonl');
execFileSync('bash', [path.join(SRCDIR, 'tests/html/nightly_history.sh'), history, '12', '8'], { env });
execFileSync(GATE, ['dashboard', '--quiet', '--details', '5', '-o', path.join(work, 'site'), history], { env });
const pages = [path.join(work, 'site', 'index.html')];
for (const f of fs.readdirSync(path.join(work, 'site', 'g')))
    pages.push(path.join(work, 'site', 'g', f));
const golden = path.join(SRCDIR, 'tests', 'golden', 'expected');
for (const d of fs.readdirSync(golden))
    if (d.startsWith('html_'))
        pages.push(path.join(golden, d, 'report.html'));

let status = 0;
for (const [what, cmd, args] of [
    ['html-validate', process.execPath, [cli, '--config', path.join(SRCDIR, 'tests/html/htmlvalidate.json'), ...pages]],
    ['check_pages.py', process.env.PYTHON || 'python3', [path.join(SRCDIR, 'tests/html/check_pages.py'), ...pages]],
]) {
    try {
        execFileSync(cmd, args, { stdio: 'inherit' });
        console.log(`${what}: ${pages.length} pages valid`);
    } catch (e) {
        console.error(`${what}: failed on these pages`);
        status = 1;
    }
}
fs.rmSync(work, { recursive: true, force: true });
process.exit(status);
