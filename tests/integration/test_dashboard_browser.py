#!/usr/bin/python3
"""The coordinator's live page (GET /, coordinator/dashboard.html) in a real browser.

Starts ply-coordinator with --http on a free loopback port and one single-threaded
ply-worker without a hash table, opens / in headless Chromium (Debian's chromium and
chromium-driver, driven by Debian's python3-selenium), submits perft(6) of position 2
("Kiwipete") with `ply perft --coordinator` (about 8 s on one thread here, where perft(7)
of the start position takes 5 s and perft(8) over 2 minutes), and checks while it runs:
  - the run's progress bar (the width the page gives it, and its "N/M jobs" text) read
    at two moments 3 s apart (or more, until it moves, when no job ends in 3 s, as in a
    sanitizer build): it advanced, stays within 0..100 %, and is never ahead
    of what /status says at once after;
  - the workers table shows the worker's id;
  - two screenshots, kept as test artifacts (ARTIFACT_DIR/dashboard-1.png, -2.png),
    are valid PNG files (signature, chunk CRCs, image data that inflates to the size
    IHDR gives) whose pixels differ;
  - every request the page made (the browser's own network log and the page's
    resource timing entries) went to 127.0.0.1:PORT, and the console shows no error
    (a request to another host, refused by the page's Content-Security-Policy, would
    be one);
and at the end that the answer is 8,031,647,685 (chessprogramming.org/Perft_Results,
position 2, depth 6), that the page then shows the run done at 100 %, and that
no browser process is left behind.
Usage: test_dashboard_browser.py BIN_DIR ARTIFACT_DIR
Exit 77 when chromium, chromium-driver or python3-selenium is missing.
"""
import json
import os
import re
import shutil
import struct
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
try:
    from selenium import webdriver
except ImportError as e:
    print("%s (python3-selenium): skipped" % e)
    sys.exit(77)
for exe in (CHROMIUM, CHROMEDRIVER):
    if not os.access(exe, os.X_OK):
        print("%s missing (chromium, chromium-driver): skipped" % exe)
        sys.exit(77)

BIN, ARTIFACTS = sys.argv[1], sys.argv[2]
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PERFT6 = 8031647685  # chessprogramming.org/Perft_Results, position 2 (Kiwipete), depth 6
WORKER_ID = "w-browser"
GAP_S = 3.0  # between the two readings

# What the page shows of the first run: the bar's width as the page set it (a
# percentage), the width it is drawn at, the run's heading and its jobs line.
READ_RUN = """
const run = document.querySelector('#runs .run');
if (!run) return null;
const bar = run.querySelector('.bar'), fill = bar.querySelector('div');
return {cls: run.className, width: fill.style.width,
        drawn: fill.getBoundingClientRect().width, full: bar.getBoundingClientRect().width,
        head: run.querySelector('.head b').textContent,
        jobs: run.querySelector('.head span').textContent};
"""
READ_WORKERS = """
return Array.from(document.querySelectorAll('#workers tbody tr'),
                  tr => Array.from(tr.cells, td => td.textContent));
"""
RESOURCES = """
return performance.getEntriesByType('navigation').concat(
       performance.getEntriesByType('resource')).map(e => e.name);
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_coordinator(tmp):
    log = open(os.path.join(tmp, "coordinator.log"), "w+")
    proc = subprocess.Popen([os.path.join(BIN, "ply-coordinator"), "--bind", "tcp://127.0.0.1:*",
                             "--http", "127.0.0.1:0"], stderr=log)
    endpoint = port = None
    deadline = time.time() + 20
    text = ""
    while time.time() < deadline and not (endpoint and port) and proc.poll() is None:
        time.sleep(0.05)
        log.seek(0)
        text = log.read()
        m = re.search(r"listening on (tcp://\S+)", text)
        endpoint = m.group(1) if m else None
        m = re.search(r"status over HTTP on http://127\.0\.0\.1:(\d+)/", text)
        port = int(m.group(1)) if m else None
    assert endpoint and port, "coordinator did not start:\n" + text
    return proc, endpoint, port


def status(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/status" % port, timeout=10) as r:
        return json.load(r)


def png_pixels(path):
    """The inflated image data of the PNG file at @path, after checking its structure."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "%s: no PNG signature" % path
    pos, chunks = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + body) == crc, "%s: bad CRC in chunk %s" % (path, kind)
        chunks.append((kind, body))
        pos += 12 + n
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", (path, chunks[0][0])
    w, h, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    pixels = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    # one filter byte a row, then the row's samples (8-bit samples here)
    assert depth == 8 and len(pixels) == h * (1 + w * channels), (path, w, h, depth, colour)
    assert w >= 800 and h >= 600, "%s: %dx%d" % (path, w, h)
    return pixels


def descendants(pid):
    """The ids of every live process below @pid (from /proc)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


def mentioning(text):
    """The ids of the live processes whose command line contains @text (from /proc)."""
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if text.encode() in f.read():
                        out.add(int(d))
            except OSError:
                pass
    return out


def alive(pid):
    """True while @pid runs (a zombie, dead and waiting for PID 1 to reap it, is not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def progress(sample):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)%", sample["width"])
    assert m, "the bar's width is %r, not a percentage" % sample["width"]
    return float(m.group(1))


def jobs_done(sample):
    m = re.match(r"(\d+)/(\d+) jobs", sample["jobs"])
    assert m, sample["jobs"]
    return int(m.group(1)), int(m.group(2))


def read_when(driver, cond, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = driver.execute_script(READ_RUN)
        if s and cond(s):
            return s
        time.sleep(0.05)
    raise AssertionError("the page did not show %s; last: %s" % (what, s))


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    shots = [os.path.join(ARTIFACTS, "dashboard-%d.png" % i) for i in (1, 2)]
    for p in shots:
        if os.path.exists(p):
            os.unlink(p)
    tmp = tempfile.mkdtemp(prefix="ply-browser-")
    coord, endpoint, port = start_coordinator(tmp)
    origin = "http://127.0.0.1:%d/" % port
    worker = subprocess.Popen([os.path.join(BIN, "ply-worker"), "--connect", endpoint,
                               "--threads", "1", "--hash", "0", "--id", WORKER_ID],
                              stderr=subprocess.DEVNULL)
    driver = run = chromedriver = browser = None
    browser_pids = set()
    try:
        profile = os.path.join(tmp, "profile")  # our browser's processes name it
        # Chromium and chromedriver are started here and reached at 127.0.0.1 only: selenium's
        # Service and chromedriver's own launch of the browser talk to "localhost", which a
        # machine without /etc/hosts (a fresh Debian chroot) cannot resolve ("Can not connect
        # to the Service", "unable to connect to renderer").
        dbg_port, cd_port = free_port(), free_port()
        browser = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--window-size=1200,900", "--user-data-dir=" + profile,
             "--no-first-run", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=%d" % dbg_port,
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        chromedriver = subprocess.Popen([CHROMEDRIVER, "--port=%d" % cd_port,
                                         "--log-path=" + os.path.join(tmp, "chromedriver.log")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for what, proc, p in (("chromium", browser, dbg_port), ("chromedriver", chromedriver,
                                                               cd_port)):
            deadline = time.time() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", p), 1).close()
                    break
                except OSError:
                    if time.time() > deadline or proc.poll() is not None:
                        raise AssertionError("%s does not listen on 127.0.0.1:%d" % (what, p))
                    time.sleep(0.1)
        opts = webdriver.ChromeOptions()
        opts.debugger_address = "127.0.0.1:%d" % dbg_port
        opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        driver = webdriver.Remote(command_executor="http://127.0.0.1:%d" % cd_port, options=opts)
        driver.set_page_load_timeout(30)
        browser_pids = ({chromedriver.pid, browser.pid} | descendants(chromedriver.pid) |
                        descendants(browser.pid) | mentioning(profile))

        driver.get_log("performance")  # drops what the browser's first tab did
        driver.get(origin)
        assert driver.title == "ply coordinator", driver.title
        deadline = time.time() + 30
        while time.time() < deadline:
            rows = driver.execute_script(READ_WORKERS)
            if any(r and r[0] == WORKER_ID for r in rows):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the workers table never showed %s: %s" % (WORKER_ID, rows))
        row = next(r for r in rows if r[0] == WORKER_ID)
        assert row[2] == "1" and row[3] == "0", "threads and hash: %s" % row

        t_submit = time.time()
        run = subprocess.Popen([os.path.join(BIN, "ply"), "perft", "-d", "6", "--fen", KIWIPETE,
                                "--coordinator", endpoint, "--json", "--quiet"],
                               stdout=subprocess.PIPE, text=True)
        # first reading: the page shows the run running
        s1 = read_when(driver, lambda s: "running" in s["cls"], "the run running")
        t1 = time.time()
        driver.save_screenshot(shots[0])
        p1, q1 = progress(s1), status(port)["runs"][0]["progress"]
        time.sleep(max(0.0, t1 + GAP_S - time.time()))
        # second reading: GAP_S later, or once the bar has moved if no job ended meanwhile
        # (a sanitizer build counts a job of this run in several seconds)
        s2 = read_when(driver, lambda s: s["width"] != s1["width"] or "running" not in s["cls"],
                       "the bar moving")
        t2 = time.time()
        driver.save_screenshot(shots[1])
        p2, q2 = progress(s2), status(port)["runs"][0]["progress"]
        rows = driver.execute_script(READ_WORKERS)

        print("page, %.1f s after the submission: %s, bar %s (%s)" %
              (t1 - t_submit, s1["head"], s1["width"], s1["jobs"]))
        print("page, %.1f s later: %s, bar %s (%s)" % (t2 - t1, s2["head"], s2["width"],
                                                      s2["jobs"]))
        assert 0 <= p1 < p2 <= 100, "the bar did not advance within 0..100 %%: %s then %s" % (
            s1["width"], s2["width"])
        # never ahead of the coordinator: /status read just after each reading
        assert p1 <= 100 * q1 + 0.05 and p2 <= 100 * q2 + 0.05, (p1, q1, p2, q2)
        (d1, n1), (d2, n2) = jobs_done(s1), jobs_done(s2)
        total = status(port)["runs"][0]["jobs"]["total"]
        assert n1 == n2 == total and 0 <= d1 <= d2 <= total, (s1["jobs"], s2["jobs"], total)
        for s in (s1, s2):  # drawn inside its track (the width eases in over 0.4 s)
            assert s["full"] > 0 and 0 <= s["drawn"] <= s["full"] + 0.5, s
        assert any(r and r[0] == WORKER_ID for r in rows), rows

        a, b = png_pixels(shots[0]), png_pixels(shots[1])
        assert a != b, "the two screenshots are the same image"

        assert run.wait(150) == 0, "ply perft failed"
        out = json.loads(run.stdout.read())
        assert out["nodes"] == PERFT6, out["nodes"]
        done = read_when(driver, lambda s: "done" in s["cls"], "the run done", timeout=20)
        assert progress(done) == 100 and jobs_done(done) == (total, total), done

        # every request the page made went to the coordinator's own address, and the
        # tab made no network request anywhere else (what the browser's own first page,
        # chrome://new-tab-page, loaded from chrome:// and data: is not the page's)
        urls = set(driver.execute_script(RESOURCES))
        for e in driver.get_log("performance"):
            m = json.loads(e["message"])["message"]
            if m["method"] == "Network.requestWillBeSent":
                url, doc = m["params"]["request"]["url"], m["params"].get("documentURL", "")
                if doc.startswith(origin) or re.match(r"(https?|wss?|ftp):", url):
                    urls.add(url)
        assert origin in urls and origin + "status" in urls, urls
        foreign = sorted(u for u in urls if not u.startswith(origin))
        assert not foreign, "requests to another host: %s" % foreign
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, "console errors: %s" % errors
        print("perft(6) = %d; bar %s then %s %.1f s apart, 100.0%% at the end; worker %s shown; "
              "requests only to %s (%d URLs); screenshots %s, %s" %
              (PERFT6, s1["width"], s2["width"], t2 - t1, WORKER_ID, origin, len(urls), *shots))
    finally:
        if driver:
            browser_pids |= descendants(browser.pid) | mentioning(profile)
            driver.quit()
        for proc in (browser, chromedriver):  # attached, not launched: quit leaves them
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if run and run.poll() is None:
            run.kill()
            run.wait()
        for p in (worker, coord):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    # the browser is gone: chromedriver and every process it started
    t_quit = time.time()
    deadline = t_quit + 20  # the crash handler and zygotes leave a little after the browser
    while time.time() < deadline and any(alive(p) for p in browser_pids):
        time.sleep(0.1)
    left = sorted(p for p in browser_pids if alive(p))
    for p in left:
        os.kill(p, 9)
    assert not left, "browser processes left behind: %s" % left
    assert browser_pids, "no browser process seen"
    assert coord.returncode == 0, "coordinator exit status %s" % coord.returncode
    shutil.rmtree(tmp, ignore_errors=True)
    print("no browser process left (%d seen, all gone %.1f s after quit)" %
          (len(browser_pids), time.time() - t_quit))


if __name__ == "__main__":
    main()
