"""Lighthouse and axe-core on a paired phone's page, as a phone at the table reaches it: a running
mock board and its real web view, Blue's phone paired from the board's menu, the page at
``http://cribbage-table.local:PORT`` (plain HTTP under a name that is not localhost: an insecure
context) and at ``http://127.0.0.1:PORT`` (a secure one). Run by tests/system/test-phone-audit.sh,
which installs the two tools; prints one ``ok``/``FAIL`` line a check and a last line of figures.

Usage: python tests/system/phone_audit.py NODE_MODULES
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS.parent)]

import pytest  # noqa: E402  (the tests' own MonkeyPatch, used outside a test)

from test_phones import Table  # noqa: E402

NAME = "cribbage-table.local"
PLAIN_HTTP_ONLY = {"is-on-https", "redirects-http"}  # what no page served over plain HTTP can pass
PAGES = ("/phone", "/", "/games", "/stats")
VIEWS = ("score", "count", "coach", "more")  # the phone page's views, each audited by axe
AXE_RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", f"--host-resolver-rules=MAP {NAME} 127.0.0.1"]


def lighthouse(modules: Path, url: str, cookie: str, out: Path) -> dict:
    """Lighthouse's report of ``url`` (mobile, its default throttling) with the phone's cookie."""
    subprocess.run([str(modules / ".bin" / "lighthouse"), url, "--quiet", "--output=json", f"--output-path={out}",
                    "--chrome-flags=" + " ".join(_quoted(flag) for flag in CHROMIUM_FLAGS),
                    "--extra-headers=" + json.dumps({"Cookie": cookie})],
                   check=True, timeout=300, env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"})
    return json.loads(out.read_text())


def _quoted(flag: str) -> str:
    """A Chromium flag as Lighthouse's --chrome-flags takes it: a value with spaces quoted after its ``=``."""
    name, _, value = flag.partition("=")
    return f"{name}='{value}'" if " " in value else flag


def failed_audits(report: dict, category: str) -> list[str]:
    """The weighted audits of ``category`` that did not pass, with what Lighthouse says of them."""
    audits = report["audits"]
    return [f"{ref['id']} {audits[ref['id']].get('displayValue', '')}".strip()
            for ref in report["categories"][category]["auditRefs"]
            if ref.get("weight") and audits[ref["id"]]["score"] is not None and audits[ref["id"]]["score"] < 1]


def axe_violations(modules: Path, base: str, cookie: str) -> dict[str, list]:
    """axe-core's violations on each page (and each view of /phone) at 390x844."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    axe = (modules / "axe-core" / "axe.min.js").read_text()
    found: dict[str, list] = {}
    try:
        driver.set_window_size(390, 844)
        driver.get(base + "/offline")
        for part in cookie.split("; "):
            key, value = part.split("=", 1)
            driver.add_cookie({"name": key, "value": value})
        for page in PAGES:
            driver.get(base + page)
            time.sleep(1.0)  # the live event has come and the page's script has drawn it
            for view in VIEWS if page == "/phone" else (None,):
                if view:
                    driver.execute_script(f"document.querySelector('button[data-view=\"{view}\"]').click()")
                driver.execute_script(axe)
                result = json.loads(driver.execute_async_script(
                    "var done = arguments[arguments.length - 1];"
                    f"axe.run(document, {{runOnly: {json.dumps(AXE_RULES)}}}).then(r => done(JSON.stringify("
                    "r.violations.map(v => [v.id, v.impact, v.nodes.length]))));"))
                found[page + (f"#{view}" if view else "")] = result
    finally:
        driver.quit()
    return found


def main(modules: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="cribbage-audit-") as folder:
        monkeypatch = pytest.MonkeyPatch()
        table = Table(Path(folder), monkeypatch)
        try:
            blue = table.pair(1)
            assert blue.enter("peg", 2)[1]["text"] == "Blue peg 2"
            failures, figures = 0, []
            for origin in (f"http://{NAME}:{table.port}", f"http://127.0.0.1:{table.port}"):
                insecure = NAME in origin
                report = lighthouse(modules, origin + "/phone", blue.cookie, Path(folder) / "lighthouse.json")
                scores = {key: round(category["score"] * 100) for key, category in report["categories"].items()}
                for category in ("accessibility", "best-practices", "seo", "performance"):
                    missed = [audit for audit in failed_audits(report, category)
                              if not (insecure and audit.split()[0] in PLAIN_HTTP_ONLY)]
                    bad = [audit for audit in missed if category != "performance"] or (
                        missed if scores[category] < 90 else [])
                    failures += bool(bad)
                    print(f"{'FAIL' if bad else 'ok'}: lighthouse {origin}/phone {category} {scores[category]}"
                          + (f" (not passed: {', '.join(missed)})" if missed else "")
                          + (" (plain HTTP: is-on-https, redirects-http)" if insecure and category == "best-practices"
                             else ""))
                text = report["audits"]["uses-text-compression"]
                failures += text["score"] != 1
                print(f"{'ok' if text['score'] == 1 else 'FAIL'}: lighthouse {origin}/phone uses-text-compression"
                      + "".join(f"; {audit} " + " ".join(str(part) for part in (report["audits"][audit]["score"],
                                                                                report["audits"][audit].get("displayValue"))
                                                         if part not in (None, ""))
                                for audit in ("unminified-javascript", "unminified-css")))
                figures.append(f"{'insecure' if insecure else 'secure'} " + " ".join(
                    f"{key} {scores[key]}" for key in ("performance", "accessibility", "best-practices", "seo")))
            found = axe_violations(modules, f"http://{NAME}:{table.port}", blue.cookie)
            for where, violations in found.items():
                failures += bool(violations)
                print(f"{'FAIL' if violations else 'ok'}: axe-core {where}: {len(violations)} violations"
                      + (f" {violations}" if violations else ""))
            total = sum(len(violations) for violations in found.values())
            print(f"phone audit: lighthouse /phone {'; '.join(figures)}; axe-core {total} violations over "
                  f"{len(found)} pages and views; {failures} failed")
            return 1 if failures else 0
        finally:
            table.close()
            monkeypatch.undo()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
