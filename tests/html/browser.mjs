// The dashboard and the --html report in a real browser: Debian's chromium,
// driven by playwright-core, opening the pages from disk (file://).
//
// - a 30-night history (tests/html/nightly_history.sh: a step regression on
//   night 20, a gate and kernels named to break HTML, ERROR nights) goes
//   through `nsys-gate dashboard`; a FAIL with hostile kernel names and a
//   batch go through --html;
// - every page: no console error, no page error, no dialog (the hostile
//   names carry alert() calls), and no request but the page's own file;
// - index.html has one chart per gate and one point per run; each point's
//   link is what the history says it must be (its section on the gate's
//   page, since these runs have no CI run URL), and following it lands on
//   an element with that id; the hostile names are text;
// - the same pages with JavaScript off (a second context) have the same
//   charts and points; with it on, the filter box (the page's own script,
//   allowed by its hash) hides the other gates;
// - screenshots of each page are kept in ARTIFACTS (the build directory).
//
// Environment: GATE, GENTRACE, SRCDIR, ARTIFACTS; NODE_MODULES (where
// playwright-core is; default SRCDIR/.cache/node/node_modules), CHROMIUM
// (default /usr/bin/chromium).  Exit 77 (skipped) when chromium or
// playwright-core is missing, except under CI=true, where that fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { GATE, GENTRACE, SRCDIR } = process.env;
const ARTIFACTS = process.env.ARTIFACTS || fs.mkdtempSync(path.join(os.tmpdir(), 'ng-browser-'));
const NODE_MODULES = process.env.NODE_MODULES || path.join(SRCDIR, '.cache', 'node', 'node_modules');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function skip(why) {
    if (process.env.CI === 'true') {
        console.error(`browser: ${why}, and under CI=true this suite must run`);
        process.exit(1);
    }
    console.log(`browser: skipped: ${why}`);
    process.exit(77);
}

if (!fs.existsSync(CHROMIUM))
    skip(`no ${CHROMIUM} (apt-get install chromium)`);
let chromium;
try {
    ({ chromium } = createRequire(path.join(NODE_MODULES, 'x.js'))('playwright-core'));
} catch (e) {
    skip(`no playwright-core in ${NODE_MODULES} (ci/test.sh installs it)`);
}

const failures = [];
function check(ok, msg) {
    if (!ok)
        failures.push(msg);
}

// ---- the pages ----

fs.rmSync(ARTIFACTS, { recursive: true, force: true });
fs.mkdirSync(ARTIFACTS, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-browser-work-'));
const history = path.join(work, 'history.jsonl');
const site = path.join(ARTIFACTS, 'site');
const env = { ...process.env, GATE, GENTRACE };
execFileSync('bash', [path.join(SRCDIR, 'tests/html/nightly_history.sh'), history, '30', '20'],
    { env, stdio: 'inherit' });
execFileSync(GATE, ['dashboard', '--quiet', '-o', site, history], { env, stdio: 'inherit' });

const names = path.join(work, 'names.txt');
fs.writeFileSync(names, '</title><script>alert(1)</script><img src=x onerror=alert(2)>\n' +
    'javascript:alert(3)\n"><svg onload=alert(4)>\n');
execFileSync(GENTRACE, ['-o', path.join(work, 'b.sqlite'), '--names-from', names, '--kernels', '30',
    '--no-nvtx'], { env });
execFileSync(GENTRACE, ['-o', path.join(work, 'c.sqlite'), '--names-from', names, '--kernels', '30',
    '--no-nvtx', '--scale', '1.5'], { env });
const report = path.join(ARTIFACTS, 'report.html');
// NVTX epochs with ranges nested in them, the current's backward pass 1.5x slower
for (const [side, extra] of [['nb', []], ['nc', ['--slow-range', 'backward:1.5']]])
    execFileSync(GENTRACE, ['-o', path.join(work, `${side}.sqlite`), '--kernels', '400', '--epochs', '3',
        '--nested', ...extra], { env });
const rangesReport = path.join(ARTIFACTS, 'report-ranges.html');
const batchReport = path.join(ARTIFACTS, 'batch.html');
// The gate with the exit status it must give (1 FAIL, 2 an ERROR gate).
const run = (args, want) => {
    let status = 0;
    try {
        execFileSync(GATE, args, { env, stdio: 'pipe' });
    } catch (e) {
        if (e.status === null || e.status === undefined)
            throw e;
        status = e.status;
    }
    if (status !== want)
        throw new Error(`nsys-gate ${args.join(' ')}: exit ${status}, expected ${want}`);
};
run(['--quiet', '--epochs', '2', '--name', '</title><script>alert(5)</script>', '--html', report,
    path.join(work, 'b.sqlite'), path.join(work, 'c.sqlite')], 1);
run(['--quiet', '--epoch-range', 'epoch [0-9]+$', '--threshold', '1.05', '--html', rangesReport,
    path.join(work, 'nb.sqlite'), path.join(work, 'nc.sqlite')], 1);
fs.writeFileSync(path.join(work, 'm.json'), JSON.stringify({ gates: [
    { name: 'same', baseline: 'b.sqlite', current: 'b.sqlite', epochs: 2 },
    { name: 'slower <i>', baseline: 'b.sqlite', current: 'c.sqlite', epochs: 2 },
    { name: 'missing', baseline: 'b.sqlite', current: 'nope.sqlite' },
] }));
run(['--quiet', '--manifest', path.join(work, 'm.json'), '--html', batchReport], 2);

// What the history says each gate's points must be, in time order.
const runs = new Map();
for (const line of fs.readFileSync(history, 'utf8').split('\n')) {
    if (!line.trim())
        continue;
    const v = JSON.parse(line);
    if (!runs.has(v.name))
        runs.set(v.name, []);
    runs.get(v.name).push(v);
}
for (const list of runs.values())
    list.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
const DETAILS = 20;   // the dashboard's default --details

// ---- the browser ----

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'];

async function open(jsEnabled) {
    const profile = fs.mkdtempSync(path.join(work, 'profile-'));
    return chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM, headless: true, args: ARGS, javaScriptEnabled: jsEnabled,
        viewport: { width: 1200, height: 900 },
    });
}

// Loads a page, recording what a clean page must not do.
async function visit(context, file, label) {
    const page = await context.newPage();
    const url = pathToFileURL(file).href;
    const seen = { requests: [], errors: [], dialogs: [] };
    page.on('request', (r) => seen.requests.push(r.url()));
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') seen.errors.push(m.text()); });
    page.on('pageerror', (e) => seen.errors.push(String(e)));
    page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
    await page.goto(url, { waitUntil: 'load' });
    const done = () => {
        const base = url.split('#')[0];
        const other = seen.requests.filter((r) => r.split('#')[0] !== base);
        check(other.length === 0, `${label}: requests besides the page: ${other.join(', ')}`);
        check(seen.errors.length === 0, `${label}: console or page errors: ${seen.errors.join(' | ')}`);
        check(seen.dialogs.length === 0, `${label}: a dialog opened (a script ran): ${seen.dialogs}`);
    };
    return { page, done };
}

async function points(page) {
    return page.$$eval('svg.chart.trend', (charts) => charts.map((c) => ({
        gate: c.getAttribute('data-gate'),
        runs: Number(c.getAttribute('data-runs')),
        shown: Number(c.getAttribute('data-shown')),
        points: [...c.querySelectorAll('.pt')].map((p) => ({
            href: p.tagName.toLowerCase() === 'a' ? p.getAttribute('href') : null,
            title: p.querySelector('title').textContent,
            mark: p.querySelector('[class^="v-"]').getAttribute('class'),
        })),
    })));
}

function expectHref(gateSlugHref, list, i) {
    const v = list[i];
    const url = v.context && v.context.run_url;
    if (url && /^https?:\/\/./i.test(url))
        return url;
    if (i >= list.length - DETAILS)
        return `${gateSlugHref}#run-${i + 1}`;
    return null;
}

async function checkIndex(context, label, jsEnabled) {
    const { page, done } = await visit(context, path.join(site, 'index.html'), label);
    const charts = await points(page);
    check(charts.length === runs.size, `${label}: ${charts.length} charts for ${runs.size} gates`);
    const rows = await page.$$eval('table.overview tr[data-gate]', (trs) => trs.map((tr) => ({
        gate: tr.getAttribute('data-gate'), verdict: tr.getAttribute('data-verdict'),
        href: tr.querySelector('a').getAttribute('href'),
    })));
    check(rows.length === runs.size, `${label}: ${rows.length} overview rows`);
    const links = new Set(rows.map((r) => r.href));   // each gate's own page
    const rank = { fail: 0, error: 1, inconclusive: 2, pass: 3 };
    for (let i = 1; i < rows.length; i++)
        check(rank[rows[i - 1].verdict] <= rank[rows[i].verdict], `${label}: overview not failing first`);
    const external = new Set();
    for (const c of charts) {
        const list = runs.get(c.gate);
        check(list, `${label}: a chart for an unknown gate ${c.gate}`);
        if (!list)
            continue;
        check(c.runs === list.length && c.shown === list.length && c.points.length === list.length,
            `${label}: ${c.gate}: ${c.points.length} points, ${c.shown} shown, ${c.runs} runs; history has ${list.length}`);
        const gateHref = rows.find((r) => r.gate === c.gate).href;
        c.points.forEach((p, i) => {
            const v = list[i];
            const want = expectHref(gateHref, list, i);
            check(p.href === want, `${label}: ${c.gate} point ${i + 1} links ${p.href}, expected ${want}`);
            check(p.mark === `v-${v.verdict}`, `${label}: ${c.gate} point ${i + 1} is ${p.mark}, verdict ${v.verdict}`);
            const commit = (v.context && v.context.commit) || 'unknown';
            for (const part of [`run ${i + 1},`, `commit ${commit.slice(0, 12)}`, v.timestamp,
                v.verdict.toUpperCase(), v.ratio === null ? 'ratio unknown' : `ratio ${v.ratio.toFixed(3)}x`,
                v.p_value === null ? 'p n/a' : 'p '])
                check(p.title.includes(part), `${label}: ${c.gate} point ${i + 1} title "${p.title}" lacks "${part}"`);
            // a CI run's URL is checked against the history above, not followed
            // (no network); the page's own links are followed
            if (p.href && /^https?:/i.test(p.href))
                external.add(p.href);
            else if (p.href)
                links.add(p.href);
        });
    }
    // the hostile gate's name is text, in the table and in its chart's heading
    const text = await page.evaluate(() => document.body.innerText);
    check(text.includes('<b>hostile</b> "gate" & co'), `${label}: the hostile gate name is not shown as text`);
    check(await page.locator('script').count() === 1, `${label}: more than the page's own script`);
    check(await page.locator('img, b, iframe').count() === 0, `${label}: markup from a name was parsed`);
    await checkChanges(page, label);
    const filter = await page.locator('#filter').isVisible();
    check(filter === jsEnabled, `${label}: the filter box is ${filter ? '' : 'not '}visible`);
    if (jsEnabled) {
        await page.fill('#filter', 'bert');
        const visible = await page.$$eval('section.gate', (s) => s.filter((e) => !e.hidden).map((e) => e.getAttribute('data-gate')));
        check(visible.length === 1 && visible[0] === 'bert', `${label}: the filter left ${visible}`);
        await page.fill('#filter', '');
    }
    const wantExternal = [...runs.values()].flat().filter((v) => v.context && /^https?:\/\/./i.test(v.context.run_url || '')).length;
    check(wantExternal === 0 || external.size > 0, `${label}: ${wantExternal} runs have a CI run URL, no point links one`);
    console.log(`${label}: ${charts.length} charts, ${links.size} page links followed, ${external.size} CI run links`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${label}.png`), fullPage: true });
    done();
    await page.close();
    return links;
}

// The change points: resnet50's step at night 20 (nightly_history.sh), a
// standing regression in the index's Changes table, and one marker on its
// chart, at the 20th point, its label inside the chart.
async function checkChanges(page, label) {
    const list = runs.get('resnet50');
    const commit = list[19].context.commit.slice(0, 12);
    const rows = await page.$$eval('#changes-table tbody tr', (trs) => trs.map((tr) => tr.innerText));
    check(rows.some((t) => t.startsWith('resnet50') && t.includes(commit) && t.includes('regression') &&
        t.includes('standing')), `${label}: no standing change of resnet50 at ${commit} in ${JSON.stringify(rows)}`);
    const chart = page.locator('svg.chart.trend[data-gate="resnet50"]');
    const marks = chart.locator('g.change');
    check(await marks.count() === 1, `${label}: resnet50 has ${await marks.count()} change markers`);
    if (await marks.count() !== 1)
        return;
    const line = await marks.first().locator('path').boundingBox();
    const point = await chart.locator('.pt').nth(19).boundingBox();
    check(line && point && Math.abs(line.x + line.width / 2 - (point.x + point.width / 2)) < 1.5,
        `${label}: the change marker is not at the 20th point (${JSON.stringify(line)} vs ${JSON.stringify(point)})`);
    const box = await chart.boundingBox();
    const text = await marks.first().locator('text').boundingBox();
    check(text && box && text.x >= box.x && text.x + text.width <= box.x + box.width &&
        text.y >= box.y, `${label}: the change label is outside its chart`);
    check((await marks.first().locator('text').textContent()).startsWith(list[19].context.commit.slice(0, 7)),
        `${label}: the marker's label does not name the first bad commit`);
    await page.locator('section.gate[data-gate="resnet50"]').screenshot({ path: path.join(ARTIFACTS, `${label}-change.png`) });
}

async function checkLinks(context, links) {
    for (const href of links) {
        const [file, id] = href.split('#');
        const { page, done } = await visit(context, path.join(site, file), `link ${href}`);
        if (id !== undefined)
            check(await page.locator(`[id="${id}"]`).count() === 1, `link ${href}: no element with id ${id}`);
        done();
        await page.close();
    }
}

// The breakdown's stacked bars: as many as asked, each with a compute
// segment whose tooltip names it, drawn inside the page's width, and the
// table of its figures beside it (two rows, baseline and current).
async function checkStacked(page, label, want) {
    const bars = page.locator('svg.chart.stacked');
    check(await bars.count() === want, `${label}: ${want} breakdown bars`);
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    for (let i = 0; i < await bars.count(); i++) {
        const box = await bars.nth(i).boundingBox();
        check(box && box.width > 100 && box.x + box.width <= width + 1, `${label}: breakdown bar ${i} off the page`);
        const titles = await bars.nth(i).locator('rect.seg title').allTextContents();
        check(titles.some((t) => /^(baseline|current): compute \d/.test(t)), `${label}: no compute segment in ${titles}`);
    }
    check(await page.locator('table.breakdown tbody tr').count() === 2 * want, `${label}: breakdown tables`);
}

// The table of the ranges nested in the epochs: a row a group, the one that
// changed most first, inside the page's width.
async function checkRanges(page, label, want) {
    const rows = page.locator('table.ranges tbody tr');
    check(await rows.count() === want.length, `${label}: ${want.length} range rows`);
    for (let i = 0; i < want.length && i < await rows.count(); i++)
        check((await rows.nth(i).locator('td').last().textContent()) === want[i],
            `${label}: range row ${i} is not ${want[i]}`);
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    const box = await page.locator('table.ranges').boundingBox();
    check(box && box.x + box.width <= width + 1, `${label}: the ranges table is off the page`);
    await page.locator('table.ranges').screenshot({ path: path.join(ARTIFACTS, `${label}-table.png`) });
}

async function checkPage(context, file, label, want) {
    const { page, done } = await visit(context, file, label);
    const text = await page.evaluate(() => document.body.innerText);
    for (const w of want.text || [])
        check(text.includes(w), `${label}: the text lacks ${JSON.stringify(w)}`);
    check(await page.locator('script').count() === 1, `${label}: more than the page's own script`);
    check(await page.locator('img, iframe').count() === 0, `${label}: markup from a name was parsed`);
    check(await page.locator('svg.chart.strip').count() === want.strips, `${label}: strip plots`);
    check(await page.locator('section.run').count() === want.sections, `${label}: sections`);
    if (want.stacked !== undefined)
        await checkStacked(page, label, want.stacked);
    check(await page.locator('table.ranges').count() === (want.ranges ? 1 : 0), `${label}: ranges tables`);
    if (want.ranges)
        await checkRanges(page, label, want.ranges);
    await page.screenshot({ path: path.join(ARTIFACTS, `${label}.png`), fullPage: true });
    done();
    await page.close();
}

const hostileKernel = '</title><script>alert(1)</script><img src=x onerror=alert(2)>';
for (const js of [true, false]) {
    const context = await open(js);
    const suffix = js ? '' : '-nojs';
    const links = await checkIndex(context, `dashboard${suffix}`, js);
    if (js) {
        check(links.size > 0, 'dashboard: no point links anywhere');
        await checkLinks(context, links);
        const hostileGate = [...links].find((l) => l.startsWith('g/b-hostile')).split('#')[0];
        await checkPage(context, path.join(site, hostileGate), 'dashboard-gate-hostile',
            { text: [hostileKernel, '<b>hostile</b> "gate" & co'],
              strips: runs.get('<b>hostile</b> "gate" & co').slice(-DETAILS).filter((v) => v.verdict !== 'error').length,
              sections: DETAILS });
        const resnet = [...links].find((l) => l.startsWith('g/resnet50')).split('#')[0];
        await checkPage(context, path.join(site, resnet), 'dashboard-gate-resnet50',
            { text: ['FAIL: per-epoch regression'], strips: DETAILS, sections: DETAILS });
    }
    await checkPage(context, report, `report${suffix}`,
        { text: [hostileKernel, '</title><script>alert(5)</script>', '"><svg onload=alert(4)>'], strips: 1, sections: 1,
          stacked: 1 });
    await checkPage(context, rangesReport, `report-ranges${suffix}`,
        { text: ['Ranges nested in the epochs', 'backward'], strips: 1, sections: 1, stacked: 1,
          ranges: ['backward', 'epoch # step #', 'forward', 'optimizer.step'] });
    await checkPage(context, batchReport, `batch${suffix}`,
        { text: ['slower <i>', 'ERROR: unable to open'], strips: 2, sections: 3 });
    await context.close();
}

fs.rmSync(work, { recursive: true, force: true });
for (const f of failures)
    console.error(`browser: ${f}`);
console.log(`browser: ${failures.length ? 'FAILED' : 'ok'}; screenshots in ${ARTIFACTS}`);
process.exit(failures.length ? 1 : 0);
