#!/usr/bin/env python3
"""The web page of `strata serve` in headless Chromium over WebDriver (run by scripts/ui-checks.sh).

Against a server with an API key on an index of USC Title 35 (HTML) and the AOSA bash chapter
(PDF), each check drives the page as a user would and reads the result from the DOM:

  key        no key: the page asks for one; a wrong key is refused (the dialog says so and
             stays); the right one is kept and the documents load
  keyboard   `/` focuses the search box; arrows move through results; Enter opens one
  102(b)     "section 102(b)": the first result is § 102; 'ranks and scores' shows its legs;
             definitions and the context block (Copy) are beside the results; opened, the
             section view shows § 102 with subsection (b) marked and scrolled into view, the
             hit's sentences marked, defined terms carrying their definitions
  xref       a cross-reference in that section is a link; following it opens its target
  pdf        a hit in the PDF: the page is rendered by pdf.js (the canvas has ink) and the
             passage is marked on its text layer, with the words strata highlighted
  upload     a file chosen in Documents and one dropped on it are uploaded, their jobs reach
             `done`, and a search then finds them; Remove (confirmed) takes one out of the
             list and out of the results
  dark       with prefers-color-scheme: dark the page is dark; at 420 px wide nothing
             overflows sideways
  open       (--open, a server without keys) the page never asks for a key and lists the
             documents
  console    no script error or CSP violation in the browser's console (401s of the key
             check aside)

Screenshots of the main views go to --shots when given. Exits 1 when a check fails.
"""

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import SessionNotCreatedException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

UPLOAD_WORD = "quuxbarometer"


class Check(Exception):
    pass


def browser(args, attempts=3):
    """Chromium under chromedriver, each attempt with a fresh profile in the work folder. A
    browser that exits while starting is tried again (CI once saw "Chrome instance exited" on
    the second launch of a run), with chromedriver's log printed; the last failure is raised."""
    for attempt in range(1, attempts + 1):
        opts = Options()
        opts.binary_location = args.chrome
        profile = tempfile.mkdtemp(prefix="chrome-profile-", dir=args.work)
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  "--window-size=1400,1000", "--force-device-scale-factor=1",
                  f"--user-data-dir={profile}"]:
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        log = Path(args.work) / f"chromedriver-{attempt}.log"
        try:
            driver = webdriver.Chrome(service=Service(executable_path=args.driver, log_output=str(log)),
                                      options=opts)
        except SessionNotCreatedException as e:
            print(f"ui-check: the browser did not start (attempt {attempt} of {attempts}): {e.msg}")
            lines = log.read_text(errors="replace").splitlines() if log.exists() else []
            for line in lines[-15:]:
                print(f"  chromedriver: {line}")
            if attempt == attempts:
                raise
            time.sleep(2 * attempt)
            continue
        driver.set_script_timeout(30)
        return driver


def wait(driver, what, timeout=30):
    """Waits until what(driver) is truthy and returns it; an element replaced while it was
    read (the view re-rendering) is read again at the next poll."""
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda d: what(d))


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def find(driver, css):
    found = driver.find_elements(By.CSS_SELECTOR, css)
    return found[0] if found else None


def words(text):
    return re.findall(r"\w+", text.lower())


def check_key(driver, args):
    driver.get(args.base + "/")
    wait(driver, lambda d: js(d, "return document.getElementById('key-dialog').open"))
    key_input = driver.find_element(By.ID, "key-input")
    key_input.send_keys("ui-wrong-key-0000000000000000", Keys.ENTER)
    error = wait(driver, lambda d: d.find_element(By.ID, "key-error").text)
    if "refused" not in error:
        raise Check(f"a wrong key: the dialog says {error!r}, not that the key was refused")
    if not js(driver, "return document.getElementById('key-dialog').open"):
        raise Check("a wrong key closed the dialog")
    key_input.send_keys(args.key, Keys.ENTER)
    wait(driver, lambda d: not js(d, "return document.getElementById('key-dialog').open"))
    options = wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#doc option")) >= 3 and
                   d.find_elements(By.CSS_SELECTOR, "#doc option"))
    if js(driver, "return sessionStorage.getItem('strata-api-key')") != args.key:
        raise Check("the key is not in session storage")
    return f"wrong key refused, right key kept; {len(options) - 1} documents listed"


def search(driver, query, doc=""):
    driver.get(driver.current_url.split("#")[0] + "#/search")
    if doc:
        js(driver, "document.querySelector('details.options').open = true")
        Select(driver.find_element(By.ID, "doc")).select_by_value(doc)
    else:
        js(driver, "document.getElementById('doc').value = ''")
    # The last results go first, so that the wait below sees this search's.
    js(driver, "document.getElementById('results').replaceChildren(); document.getElementById('search-status').textContent = ''")
    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys(query, Keys.ENTER)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#results .result") and
         "result" in d.find_element(By.ID, "search-status").text)
    return driver.find_elements(By.CSS_SELECTOR, "#results .result")


def check_102b(driver, args):
    body = driver.find_element(By.TAG_NAME, "body")
    body.click()
    body.send_keys("/")
    if js(driver, "return document.activeElement.id") != "q":
        raise Check("`/` did not focus the search box")
    hits = search(driver, "section 102(b)")
    first = hits[0]
    cite = first.find_element(By.CSS_SELECTOR, ".cite").text
    crumbs = first.find_element(By.CSS_SELECTOR, ".crumbs").text
    if "102" not in cite + crumbs:
        raise Check(f"the first result is not § 102: {cite!r} / {crumbs!r}")
    # Title 35 is HTML: no page to cite, and its title is said once, not atop every path.
    places = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#results .result .page") if e.text]
    if places:
        raise Check(f"HTML results cite pages that do not exist: {places}")
    if crumbs.splitlines()[:1] == ["TITLE 35—PATENTS"]:
        raise Check(f"the heading path repeats the document's title: {crumbs!r}")
    defs = driver.find_elements(By.CSS_SELECTOR, "#definitions dd .muted")
    if any("TITLE 35—PATENTS › TITLE 35—PATENTS" in d.get_attribute("textContent") for d in defs):
        raise Check("a definition's citation repeats the document's title")
    driver.find_element(By.ID, "q").send_keys(Keys.ARROW_DOWN)
    if js(driver, "return document.activeElement.dataset.index") != "0":
        raise Check("ArrowDown from the box did not focus the first result")
    if len(hits) > 1:
        js(driver, "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowDown', bubbles: true}))")
        if js(driver, "return document.activeElement.dataset.index") != "1":
            raise Check("ArrowDown did not move to the second result")
        js(driver, "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowUp', bubbles: true}))")
    js(driver, "window.scrollTo(0, 0)")
    shot(driver, args, "search")
    # Ranks and scores on demand; definitions and the context block beside the results.
    js(driver, "document.querySelector('details.options').open = true")
    driver.find_element(By.ID, "show-legs").click()
    legs = first.find_element(By.CSS_SELECTOR, ".legs")
    if legs.get_attribute("open") is None or "exact" not in legs.text:
        raise Check(f"'ranks and scores' does not show the legs: {legs.text!r}")
    driver.find_element(By.ID, "show-legs").click()
    js(driver, "document.querySelector('details.options').open = false")
    terms = driver.find_elements(By.CSS_SELECTOR, "#definitions:not([hidden]) dt")
    if not terms:
        raise Check("no definitions beside the results")
    if len(terms) > len(hits):
        raise Check(f"{len(terms)} definitions for {len(hits)} results: not bounded by the hits shown")
    more = driver.find_elements(By.CSS_SELECTOR, "#definitions .more:not([hidden]) a")
    if more and "#/read?" not in (more[0].get_attribute("href") or ""):
        raise Check("a term left out of the definitions does not link to the section defining it")
    driver.find_element(By.ID, "copy-context").click()
    wait(driver, lambda d: d.find_element(By.ID, "copy-context").text == "Copied")
    js(driver, "arguments[0].focus()", first)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait(driver, lambda d: find(d, "#section mark.target"))
    title = driver.find_element(By.CSS_SELECTOR, "#section h1").text
    if "102" not in title:
        raise Check(f"the section view shows {title!r}, not § 102")
    # Where the marked subsection starts in the section's text, and where (b) and (c) begin.
    where = js(driver, """
        const text = document.querySelector('#section .section-text');
        const mark = text.querySelector('mark.target');
        const range = document.createRange();
        range.setStart(text, 0); range.setEndBefore(mark);
        const before = range.toString().length, all = text.textContent;
        const b = all.search(/(^|\\n)\\s*\\(b\\)/), c = all.search(/(^|\\n)\\s*\\(c\\)/);
        const box = mark.getBoundingClientRect(), pane = document.getElementById('section').getBoundingClientRect();
        const marks = [...text.querySelectorAll('mark.target')].map(m => m.textContent).join('');
        return {before, b, c, mark: marks, visible: box.top >= pane.top && box.top < pane.bottom,
                highlights: text.querySelectorAll('mark.hit').length};
    """)
    if not where["mark"].startswith("(b)"):
        raise Check(f"the marked text does not start at (b): {where['mark'][:80]!r}")
    if where["highlights"] == 0:
        raise Check("the hit's highlighted sentences are not marked in the section")
    terms = driver.find_elements(By.CSS_SELECTOR, "#section dfn.term")
    if not terms or " means " not in (terms[0].get_attribute("title") or ""):
        raise Check("defined terms in the section carry no definition to show on hover")
    if not (0 <= where["b"] <= where["before"] and (where["c"] < 0 or where["before"] < where["c"])):
        raise Check(f"the highlight is not in subsection (b): {where}")
    if not where["visible"]:
        raise Check(f"the highlight is not scrolled into view: {where}")
    shot(driver, args, "read")
    return (f"§ 102 opened, {where['mark'][:50]!r}… ({len(where['mark'])} characters) marked from (b) "
            f"to (c), in view; {where['highlights']} highlight marks")


def check_xref(driver, args):
    link = wait(driver, lambda d: find(d, "#section a.xref"))
    target = re.search(r"node=([^&]+)", link.get_attribute("href")).group(1)
    before = driver.find_element(By.CSS_SELECTOR, "#section h1").text
    text = link.text
    link.click()
    wait(driver, lambda d: f"node={target}" in d.current_url and
         d.find_element(By.CSS_SELECTOR, "#section h1").text != before)
    after = driver.find_element(By.CSS_SELECTOR, "#section h1").text
    current = wait(driver, lambda d: find(d, "#outline a.current"))
    if current.get_attribute("data-node") != target:
        raise Check(f"the outline marks {current.get_attribute('data-node')}, not {target}")
    return f"{text!r} → {after!r}"


def check_pdf(driver, args):
    pdf = js(driver, "return [...document.querySelectorAll('#doc option')].find(o => /aosa/i.test(o.textContent + o.value))?.value")
    if not pdf:
        raise Check("the PDF is not among the documents")
    hits = search(driver, "readline library editing", pdf)
    hits[0].click()
    box = wait(driver, lambda d: find(d, "#pdf-pane .pdf-page[data-marked]"), timeout=60)
    marked = int(box.get_attribute("data-marked"))
    if marked == 0:
        raise Check("the rendered page has no passage marked")
    page = int(box.get_attribute("data-page"))
    # The page that holds the first highlighted sentence, by the server's own page spans.
    wanted = js(driver, """
        const q = new URLSearchParams(location.hash.split('?')[1]);
        const start = Number(q.get('hl').split(',')[0].split('-')[0]);
        const key = sessionStorage.getItem('strata-api-key');
        return fetch(`/v1/documents/${q.get('doc')}/pages?from=1&to=20`, {headers: {Authorization: `Bearer ${key}`}})
          .then(r => r.json()).then(p => p.pages.find(x => x.span.start <= start && start < x.span.end).number);
    """)
    if page != wanted:
        raise Check(f"page {page} rendered, the first highlight is on page {wanted}")
    ink = js(driver, """
        const c = document.querySelector('#pdf-pane canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && d[i] < 128) n++;
        return {n, w: c.width, h: c.height};
    """)
    if ink["n"] < 500:
        raise Check(f"the canvas is blank: {ink}")
    passage = " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, "#pdf-pane .textLayer span.passage"))
    highlighted = " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, "#section mark.hit"))
    got, want = words(passage), set(words(highlighted))
    shared = sum(1 for w in got if w in want)
    if shared < max(3, len(got) // 2):
        raise Check(f"the marked text {passage[:120]!r} is not the highlight {highlighted[:120]!r}")
    shot(driver, args, "pdf")
    return f"page {page} rendered ({ink['w']}x{ink['h']}, {ink['n']} ink pixels), {marked} text spans marked"


def check_upload(driver, args):
    path = Path(args.work) / "ui-upload-notes.md"
    path.write_text(f"# Calibration notes\n\n## 1. The {UPLOAD_WORD}\n\n"
                    f"The {UPLOAD_WORD} is read every morning and its value written down.\n")
    driver.get(args.base + "/#/docs")
    rows = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#docs-table tbody tr"))
    before = len(rows)
    chooser = driver.find_element(By.ID, "file-input")
    js(driver, "arguments[0].hidden = false", chooser)
    chooser.send_keys(str(path))
    js(driver, "arguments[0].hidden = true", chooser)
    job = wait(driver, lambda d: find(d, "#jobs li[data-state='done'], #jobs li[data-state='failed'], #jobs li.error"),
               timeout=120)
    if job.get_attribute("data-state") != "done":
        raise Check(f"the upload's job ended {job.text!r}")
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#docs-table tbody tr")) == before + 1)
    # A file dropped on the zone (a real drop event carrying a File) goes the same way.
    js(driver, """
        const data = new DataTransfer();
        data.items.add(new File(['# Dropped\\n\\n## 1. Drops\\n\\nA dropped note about the zanzibarometer.\\n'],
                                'dropped-note.md', {type: 'text/markdown'}));
        document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
    """)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#jobs li[data-state='done']")) == 2, timeout=120)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#docs-table tbody tr")) == before + 2)
    shot(driver, args, "documents")
    hits = search(driver, UPLOAD_WORD)
    title = hits[0].find_element(By.XPATH, "./ancestor::section[1]/h2").text
    if "Calibration notes" not in title:
        raise Check(f"the search for {UPLOAD_WORD} finds {title!r} first")
    # Removal: the button, the confirmation, one row fewer, and the search no longer finds it.
    driver.get(args.base + "/#/docs")
    row = wait(driver, lambda d: [r for r in d.find_elements(By.CSS_SELECTOR, "#docs-table tbody tr")
                                  if "Dropped" in r.text])
    row[0].find_element(By.CSS_SELECTOR, "button.danger").click()
    driver.switch_to.alert.accept()
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#docs-table tbody tr")) == before + 1)
    found = js(driver, """return fetch('/v1/search', {method: 'POST', headers: {'Content-Type': 'application/json',
        Authorization: 'Bearer ' + sessionStorage.getItem('strata-api-key')}, body: JSON.stringify({query: 'zanzibarometer'})})
        .then(r => r.json()).then(j => j.hits.length)""")
    if found != 0:
        raise Check(f"the removed document is still found ({found} hits)")
    return (f"chosen and dropped files: jobs done, {before} → {before + 2} documents, found by search; "
            f"one removed, {before + 1} left and no longer found")


def check_open(driver, args):
    driver.get(args.base + "/")
    options = wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#doc option")) >= 3 and
                   d.find_elements(By.CSS_SELECTOR, "#doc option"))
    hits = search(driver, "section 102(b)")
    if js(driver, "return document.getElementById('key-dialog').open") or \
            driver.find_element(By.ID, "key-button").is_displayed():
        raise Check("a server without keys, and the page asks for one")
    return f"no key asked; {len(options) - 1} documents listed, {len(hits)} results"


def check_console(driver, args):
    bad = []
    for entry in driver.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        if "status of 401" in entry["message"]:
            continue  # the wrong and missing keys of the key check
        bad.append(entry["message"])
    if bad:
        raise Check("console errors:\n  " + "\n  ".join(bad))
    return "no errors"


def shot(driver, args, name):
    if not args.shots:
        return
    Path(args.shots).mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(Path(args.shots) / f"{name}.png"))


def check_dark_narrow(driver, args):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    search(driver, "section 102(b)")
    shot(driver, args, "search-dark")
    driver.set_window_size(420, 900)
    js(driver, "document.querySelector('#results .result').focus()")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait(driver, lambda d: find(d, "#section mark.target"))
    shot(driver, args, "read-narrow-dark")
    look = js(driver, """return {bg: getComputedStyle(document.body).backgroundColor,
        overflow: document.documentElement.scrollWidth - innerWidth, width: innerWidth}""")
    channels = [int(c) for c in re.findall(r"\d+", look["bg"])[:3]]
    if sum(channels) > 3 * 80:
        raise Check(f"dark mode asked, the page is {look['bg']}")
    if look["overflow"] > 0:
        raise Check(f"at {look['width']} px the page is {look['overflow']} px wider than the window")
    return f"dark background {look['bg']}, no horizontal overflow at {look['width']} px"


def main():
    ap = argparse.ArgumentParser()
    for name in ["--base", "--chrome", "--driver", "--work"]:
        ap.add_argument(name, required=True)
    ap.add_argument("--key", help="the server's API key")
    ap.add_argument("--open", action="store_true", help="the server has no keys: check only that")
    ap.add_argument("--shots")
    args = ap.parse_args()
    started = time.monotonic()
    driver = browser(args)
    print(f"ui-check: {driver.capabilities.get('browserName')} {driver.capabilities.get('browserVersion')}")
    failed = 0
    try:
        checks = [("key", check_key), ("102(b)", check_102b), ("xref", check_xref), ("pdf", check_pdf),
                  ("upload", check_upload), ("dark, narrow", check_dark_narrow), ("console", check_console)]
        if args.open:
            checks = [("open", check_open), ("console", check_console)]
        for name, check in checks:
            t0 = time.monotonic()
            try:
                detail = check(driver, args)
                print(f"  PASS {name} ({time.monotonic() - t0:.1f}s): {detail}")
            except Exception as e:  # a check's failure, or the page never got there
                failed += 1
                message = str(e) if isinstance(e, Check) else f"{type(e).__name__}: {e}".strip()
                print(f"  FAIL {name} ({time.monotonic() - t0:.1f}s): {message}")
                shot(driver, args, f"failed-{name}")
                if name == "key":
                    break  # nothing else can run without the key
    finally:
        driver.quit()
    print(f"ui-check: {failed} failed, {time.monotonic() - started:.1f}s in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
