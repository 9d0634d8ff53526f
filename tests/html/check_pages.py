#!/usr/bin/python3
"""Checks HTML pages the gate wrote (the --html report, the dashboard's
pages) the way a browser and a validator would see them, without a
browser:

- the Content-Security-Policy (a <meta http-equiv>) forbids every request
  (default-src 'none', img-src 'none', base-uri 'none'), and its style and
  script hashes are the SHA-256 of the page's one <style> and one <script>;
- there is no other <script>, no inline event handler, no style attribute,
  no src attribute (nothing is loaded), no <base>, <link>, <iframe>, <img>;
- every link is a relative URL into the site or an http(s) URL;
- every <svg> is well-formed XML (xmllint --noout);
- the text is valid UTF-8 without control characters.

    check_pages.py PAGE.html...

Exit 1 with one line per problem.
"""
import base64
import hashlib
import html.parser
import re
import subprocess
import sys

problems = []


def problem(path, msg):
    problems.append(f"{path}: {msg}")


def csp_hash(text):
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


class Scan(html.parser.HTMLParser):
    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.path = path
        self.csp = None
        self.scripts = 0
        self.styles = 0
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("base", "link", "iframe", "img", "object", "embed", "frame", "audio", "video",
                   "source", "form"):
            problem(self.path, f"<{tag}> element")
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content", "")
        if tag == "script":
            self.scripts += 1
        if tag == "style":
            self.styles += 1
        for k, v in attrs:
            if k.startswith("on") or k in ("style", "src", "srcset", "formaction", "xlink:href"):
                problem(self.path, f"attribute {k}={v!r} on <{tag}>")
            if k == "href":
                self.hrefs.append(v or "")


def check(path):
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        problem(path, f"not UTF-8: {e}")
        return
    if re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text):
        problem(path, "a control character")
    scan = Scan(path)
    scan.feed(text)
    if scan.csp is None:
        problem(path, "no Content-Security-Policy")
        return
    policy = {d.split()[0]: d.split()[1:] for d in scan.csp.split(";") if d.strip()}
    for d in ("default-src", "img-src", "base-uri", "form-action"):
        if policy.get(d) != ["'none'"]:
            problem(path, f"policy {d} is {policy.get(d)}, expected 'none'")
    styles = re.findall(r"<style>(.*?)</style>", text, re.S)
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    if scan.styles != 1 or len(styles) != 1 or scan.scripts > 1 or len(scripts) != scan.scripts:
        problem(path, f"{scan.styles} style and {scan.scripts} script elements (one of each at most)")
    for name, blocks in (("style-src", styles), ("script-src", scripts)):
        want = [f"'{csp_hash(b)}'" for b in blocks]
        if policy.get(name) != want:
            problem(path, f"policy {name} {policy.get(name)} does not allow exactly {want}")
    for h in scan.hrefs:
        if re.match(r"(?i)https?://[^\s\"'<>]+$", h):
            continue
        if re.match(r"^[A-Za-z0-9._/-]*(#[A-Za-z0-9_-]+)?$", h) and not h.startswith("/") and ":" not in h:
            continue
        problem(path, f"link {h!r} is neither http(s) nor relative")
    # every <svg> as one XML document (one xmllint for the page)
    svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
    doc = "<svgs>\n" + "\n".join(svgs) + "\n</svgs>\n"
    p = subprocess.run(["xmllint", "--noout", "-"], input=doc.encode(), capture_output=True)
    if p.returncode != 0:
        problem(path, f"its SVG is not well-formed XML: {p.stderr.decode()[:400]}")


def main():
    for path in sys.argv[1:]:
        check(path)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
