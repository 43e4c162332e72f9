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

Part "analysis" (issue 28): two workers, the page opened as #owner=TOKEN, and first the
page's axis code alone (round ticks 1, 2 or 5 times a power of ten that cover the range,
distinct labels with their units: k/M nodes/s, seconds, pawns, plies; "no data yet" on an
empty chart; the idle nodes/s chart), and a deepening analysis as /status gives it drawn by
the page (+0.31, an upper bound "<= +0.12", "-#3", lines numbered from the position's move).
Then `ply analyse` of Kiwipete with that owner token (deepening when the ply command knows
--infinite, else each root move for 3 s), and while it runs: the board has 64 squares with
the FEN's pieces (read here from the FEN) and White to move, at least one line in SAN (each
a legal move by Stockfish's "go perft 1", 48 of them as published, that lands where its SAN
says) with a well-formed score and the depth; /status (valid by its schema) hides the lines
from a request without the token and with another one. `ply cancel` by its owner then ends
it: done with its iterations charted (deepening), or canceled with no lines. Then WAC.027
to depth 6: the top line is 1. Qf8+ Rxf8 2. Rxf8# with mate in 2 (Reinfeld, Win at Chess;
Stockfish 15.1: mate 2). Two screenshots (ARTIFACT_DIR/analysis-1.png while Kiwipete runs,
-2.png at the end) differ, another owner's token hides the lines, and no request left
127.0.0.1:PORT.
Usage: test_dashboard_browser.py BIN_DIR ARTIFACT_DIR [perft|analysis]  (perft by default)
Exit 77 when chromium, chromium-driver or python3-selenium is missing.
"""
import json
import math
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
try:
    import jsonschema  # python3-jsonschema: /status checked by its schema when present
except ImportError:
    jsonschema = None
for exe in (CHROMIUM, CHROMEDRIVER):
    if not os.access(exe, os.X_OK):
        print("%s missing (chromium, chromium-driver): skipped" % exe)
        sys.exit(77)

BIN, ARTIFACTS = sys.argv[1], sys.argv[2]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "coordinator",
                       "status.schema.json")) as f:
    SCHEMA = json.load(f)
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


class Browser:
    """Headless Chromium and chromedriver, started here and reached at 127.0.0.1 only."""

    def __init__(self, tmp):
        self.driver = self.chromedriver = self.browser = None
        self.pids = set()
        self.profile = os.path.join(tmp, "profile")  # our browser's processes name it
        # Chromium and chromedriver are started here and reached at 127.0.0.1 only: selenium's
        # Service and chromedriver's own launch of the browser talk to "localhost", which a
        # machine without /etc/hosts (a fresh Debian chroot) cannot resolve ("Can not connect
        # to the Service", "unable to connect to renderer").
        dbg_port, cd_port = free_port(), free_port()
        self.browser = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--window-size=1200,900",
             "--user-data-dir=" + self.profile,
             "--no-first-run", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=%d" % dbg_port,
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.chromedriver = subprocess.Popen(
            [CHROMEDRIVER, "--port=%d" % cd_port,
             "--log-path=" + os.path.join(tmp, "chromedriver.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for what, proc, p in (("chromium", self.browser, dbg_port),
                              ("chromedriver", self.chromedriver, cd_port)):
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
        self.driver = webdriver.Remote(command_executor="http://127.0.0.1:%d" % cd_port,
                                       options=opts)
        self.driver.set_page_load_timeout(30)
        self.pids = ({self.chromedriver.pid, self.browser.pid} |
                     descendants(self.chromedriver.pid) | descendants(self.browser.pid) |
                     mentioning(self.profile))

    def quit(self):
        if self.driver:
            self.pids |= descendants(self.browser.pid) | mentioning(self.profile)
            self.driver.quit()
            self.driver = None
        for proc in (self.browser, self.chromedriver):  # attached, not launched: quit leaves them
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()

    def check_gone(self):
        """After quit: chromedriver and every process it started are gone."""
        t_quit = time.time()
        deadline = t_quit + 20  # the crash handler and zygotes leave a little after the browser
        while time.time() < deadline and any(alive(p) for p in self.pids):
            time.sleep(0.1)
        left = sorted(p for p in self.pids if alive(p))
        for p in left:
            os.kill(p, 9)
        assert not left, "browser processes left behind: %s" % left
        assert self.pids, "no browser process seen"
        print("no browser process left (%d seen, all gone %.1f s after quit)" %
              (len(self.pids), time.time() - t_quit))


def check_local(driver, origin):
    """Every request the page made went to the coordinator's own address, and the tab made
    no network request anywhere else (what the browser's own first page,
    chrome://new-tab-page, loaded from chrome:// and data: is not the page's); the console
    shows no error. Returns the URLs seen."""
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
    return urls


def stop(*procs):
    for p in procs:
        if p and p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def shots_at(names):
    os.makedirs(ARTIFACTS, exist_ok=True)
    shots = [os.path.join(ARTIFACTS, n) for n in names]
    for p in shots:
        if os.path.exists(p):
            os.unlink(p)
    return shots


def perft_part():
    shots = shots_at(["dashboard-%d.png" % i for i in (1, 2)])
    tmp = tempfile.mkdtemp(prefix="ply-browser-")
    coord, endpoint, port = start_coordinator(tmp)
    origin = "http://127.0.0.1:%d/" % port
    worker = subprocess.Popen([os.path.join(BIN, "ply-worker"), "--connect", endpoint,
                               "--threads", "1", "--hash", "0", "--id", WORKER_ID],
                              stderr=subprocess.DEVNULL)
    run = web = None
    try:
        web = Browser(tmp)
        driver = web.driver
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

        urls = check_local(driver, origin)
        print("perft(6) = %d; bar %s then %s %.1f s apart, 100.0%% at the end; worker %s shown; "
              "requests only to %s (%d URLs); screenshots %s, %s" %
              (PERFT6, s1["width"], s2["width"], t2 - t1, WORKER_ID, origin, len(urls), *shots))
    finally:
        if web:
            web.quit()
        if run and run.poll() is None:
            run.kill()
            run.wait()
        stop(worker, coord)
    # the browser is gone: chromedriver and every process it started
    web.check_gone()
    assert coord.returncode == 0, "coordinator exit status %s" % coord.returncode
    shutil.rmtree(tmp, ignore_errors=True)


# What the page shows of the first search run: its state, its board (every square's name
# and piece), the side to move, the depth heading, the lines table, the charts' axes.
READ_ANALYSIS = """
const run = Array.from(document.querySelectorAll('#runs .run'))
                 .find(r => arguments[0] ? r.dataset.run === arguments[0]
                                         : / search/.test(r.querySelector('.head b').textContent));
if (!run) return null;
const chart = c => c ? {empty: c.dataset.empty || null, x: c.dataset.xTicks || '', y: c.dataset.yTicks || ''}
                     : null;
const depth = run.querySelector('.lines h3'), note = run.querySelector('.lines p');
return {cls: run.className, id: run.dataset.run, head: run.querySelector('.head b').textContent,
        squares: Array.from(run.querySelectorAll('.board .sq'),
                            q => [q.dataset.square, q.dataset.piece || '', q.textContent]),
        tomove: (run.querySelector('.tomove') || {}).textContent,
        depth: depth ? depth.textContent : null, note: note ? note.textContent : null,
        rows: Array.from(run.querySelectorAll('tr.line'), tr => Array.from(tr.cells, td => td.textContent)),
        score: chart(run.querySelector('canvas.score-chart')),
        depthChart: chart(run.querySelector('canvas.depth-chart'))};
"""
# The page's axis code on its own: ticks and labels of ranges from empty to billions.
AXES = """
const out = [];
for (const [lo, hi, kind, minStep] of arguments[0]) {
  const ax = niceTicks(lo, hi, 5, minStep);
  out.push({lo, hi, kind, ticks: ax.ticks, step: ax.step, labels: tickLabels(ax, kind)});
}
const cv = document.createElement('canvas');
cv.width = 300; cv.height = 120;
drawChart(cv, [], {xKind: 'seconds', yKind: 'pawns', yTitle: 'score', xTitle: 'time'});
return {axes: out, empty: cv.dataset.empty, emptyTicks: cv.dataset.yTicks};
"""
# A deepening analysis as /status gives it, drawn by the page's own code: scores as the
# brief for the page asks (+0.31 pawns, #N, -#N, an upper bound marked), lines numbered from
# the position's move (Black to move at move 12: "12... e5 13. Nf3").
FAKE_DEEPEN = """
const run = {id: 1, kind: 'search', state: 'running', finished: false, deepen: true,
  fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 12', answer_hidden: false,
  search: {depth: 3, moves_done: 4, lines: [
    {move: 'b8c6', san: 'Nc6', pv: ['Nc6', 'Bb5', 'a6'], score_cp: 31, mate: null, bound: 'exact', depth: 3},
    {move: 'd7d6', san: 'd6', pv: ['d6'], score_cp: 12, mate: null, bound: 'upper', depth: 3},
    {move: 'f7f6', san: 'f6', pv: ['f6', 'Nxe5', 'fxe5', 'Qh5+'], score_cp: null, mate: -3, bound: 'upper', depth: 3},
    {move: 'g7g5', san: 'g5', pv: ['g5'], score_cp: -250, mate: null, bound: 'exact', depth: 3}],
  iterations: [
    {depth: 1, san: 'Nc6', score_cp: 20, mate: null, bound: 'exact', time_ms: 10, nodes: 100},
    {depth: 2, san: 'Nc6', score_cp: -15, mate: null, bound: 'exact', time_ms: 400, nodes: 2000},
    {depth: 3, san: 'Nc6', score_cp: 31, mate: null, bound: 'exact', time_ms: 2600, nodes: 30000}]}};
const box = document.createElement('div');
document.body.appendChild(box);
showAnalysis(run, box);
const rows = Array.from(box.querySelectorAll('tr.line'), tr => Array.from(tr.cells, td => td.textContent));
const c = box.querySelectorAll('canvas');
const res = {rows, depth: box.querySelector('h3').textContent, tomove: box.querySelector('.tomove').textContent,
             score: [c[0].dataset.xTicks, c[0].dataset.yTicks], plies: [c[1].dataset.xTicks, c[1].dataset.yTicks],
             squares: box.querySelectorAll('.sq').length, pieces: box.querySelectorAll('.sq[data-piece]').length};
box.remove();
return res;
"""
KIWIPETE_MOVES = 48  # chessprogramming.org/Perft_Results, position 2, depth 1
WAC027 = "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1"
# WAC.027 (Reinfeld, Win at Chess) is mate in 2: 1. Qf8+ Rxf8 2. Rxf8#; Stockfish 15.1
# "go depth 10": score mate 2, pv a3f8 f2f8 f1f8 (tests/integration/test_deepen.c).
WAC027_BEST, WAC027_SCORE = "Qf8+", "#2"
STOCKFISH = "/usr/games/stockfish"
SCORE_RE = re.compile(r"(\u2264 |\u2265 )?([+-]\d+\.\d\d|0\.00|-?#\d+)")
SAN_RE = re.compile(r"(O-O(-O)?|[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=[QRBN])?)[+#]?")


def fen_squares(fen):
    """(square, piece) for a8, b8, ..., h1, read from the FEN's placement here (FIDE's board
    and Forsyth's notation: ranks 8 to 1, files a to h, digits for empty squares)."""
    out = []
    for r, row in enumerate(fen.split()[0].split("/")):
        c = 0
        for ch in row:
            for _ in range(int(ch) if ch.isdigit() else 1):
                out.append(("abcdefgh"[c] + str(8 - r), "" if ch.isdigit() else ch))
                c += 1
    assert len(out) == 64, fen
    return out


def legal_moves(fen):
    """The legal moves of @fen in UCI by Stockfish ("go perft 1"), or None without it."""
    if not os.access(STOCKFISH, os.X_OK):
        return None
    out = subprocess.run([STOCKFISH], input="position fen %s\ngo perft 1\nquit\n" % fen,
                         capture_output=True, text=True, timeout=60).stdout
    return set(re.findall(r"^([a-h][1-8][a-h][1-8][qrbn]?): 1$", out, re.M))


def status_as(port, token):
    """GET /status with @token in X-Ply-Owner-Token (None: without), checked by the schema."""
    req = urllib.request.Request("http://127.0.0.1:%d/status" % port)
    if token:
        req.add_header("X-Ply-Owner-Token", token)
    with urllib.request.urlopen(req, timeout=10) as r:
        doc = json.load(r)
    if jsonschema:
        jsonschema.validate(doc, SCHEMA)
    return doc


def check_ticks(ax):
    """One axis from the page's code: round, evenly spaced ticks covering the range, distinct
    labels with their unit."""
    t, step, labels = ax["ticks"], ax["step"], ax["labels"]
    where = "%s %s..%s: %s" % (ax["kind"], ax["lo"], ax["hi"], labels)
    mant = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert any(abs(mant - m) < 1e-6 for m in (1, 2, 5)), "step %s is not round: %s" % (step, where)
    assert 2 <= len(t) <= 12, where
    assert t[0] <= min(ax["lo"], ax["hi"]) + 1e-9 and t[-1] >= max(ax["lo"], ax["hi"]) - 1e-9, where
    for a, b in zip(t, t[1:]):
        assert abs(b - a - step) < step * 1e-6, where
    for v in t:
        assert abs(v / step - round(v / step)) < 1e-6, where
    assert len(set(labels)) == len(labels), "duplicate tick labels: " + where
    unit = {"rate": r"0|\d+(\.\d+)?[kMG]?", "seconds": r"\d+(\.\d+)? s",
            "pawns": r"0|[+\u2212]\d+(\.\d+)?", "plies": r"\d+", "ago": r"now|\u2212\d+(\.\d+)? s"}
    for lab in labels:
        assert re.fullmatch(unit[ax["kind"]], lab), "label %r: %s" % (lab, where)
    if ax["kind"] == "rate" and t[-1] >= 1000:
        assert any(lab[-1] in "kMG" for lab in labels), "no k/M/G unit: " + where


def read_analysis(driver, cond, what, timeout=60, run_id=None):
    deadline = time.time() + timeout
    s = None
    while time.time() < deadline:
        s = driver.execute_script(READ_ANALYSIS, run_id)
        if s and cond(s):
            return s
        time.sleep(0.1)
    raise AssertionError("the page did not show %s; last: %s" % (what, s))


def analysis_part():
    """A search run on the page: its board, its lines in SAN while it runs, its answer."""
    shots = shots_at(["analysis-%d.png" % i for i in (1, 2)])
    tmp = tempfile.mkdtemp(prefix="ply-browser-")
    coord, endpoint, port = start_coordinator(tmp)
    origin = "http://127.0.0.1:%d/" % port
    token, other = "page-" + os.urandom(12).hex(), "other-" + os.urandom(12).hex()
    workers = [subprocess.Popen([os.path.join(BIN, "ply-worker"), "--connect", endpoint,
                                 "--threads", "1", "--hash", "16", "--id", "w-page-%d" % i],
                                stderr=subprocess.DEVNULL) for i in (1, 2)]
    # `ply analyse` deepens when it knows --infinite (then run until canceled); before that it
    # searches each root move once (then --movetime is per root move: 48 moves of 3 s on two
    # workers, 72 s, canceled long before)
    helptext = subprocess.run([os.path.join(BIN, "ply"), "analyse", "--help"],
                              capture_output=True, text=True).stdout
    deepen = "--infinite" in helptext
    run = web = None
    try:
        web = Browser(tmp)
        driver = web.driver
        driver.get_log("performance")  # drops what the browser's first tab did
        driver.get(origin + "#owner=" + token)
        assert driver.title == "ply coordinator", driver.title
        assert driver.current_url == origin, "the token stayed in the address: " + driver.current_url

        # the axes alone: the old page labelled an idle nodes/s axis "1 1 1 0 0"
        cases = [[0, 1.1, "rate", 0], [0, 0, "rate", 0], [0, 1000, "rate", 0],
                 [0, 999, "rate", 0], [0, 1234567, "rate", 0], [0, 2.5e9, "rate", 0],
                 [-90, 0, "ago", 0], [-1.5, 0, "ago", 0], [0, 0.35, "seconds", 0],
                 [0.012, 47.3, "seconds", 0], [-0.37, 1.42, "pawns", 0], [0, 0.5, "pawns", 0],
                 [-3.1, -0.2, "pawns", 0], [0, 14, "plies", 1], [0, 1, "plies", 1],
                 [7, 7, "plies", 1], [0, 63, "plies", 1]]
        got = driver.execute_script(AXES, cases)
        for ax in got["axes"]:
            check_ticks(ax)
        assert got["empty"] == "no data yet" and got["emptyTicks"] == "", got
        # the live nodes/s chart, workers idle: honest axes or "no data yet"
        deadline = time.time() + 30
        while time.time() < deadline:
            c = driver.execute_script("const c = document.getElementById('chart');"
                                      "return [c.dataset.empty || null, c.dataset.xTicks,"
                                      " c.dataset.yTicks];")
            if c[2]:
                break
            assert c[0] == "no data yet", c
            time.sleep(0.2)
        ylabels, xlabels = c[2].split("|"), c[1].split("|")
        assert len(set(ylabels)) == len(ylabels) >= 2 and "now" in xlabels, c
        assert all(re.fullmatch(r"0|\d+(\.\d+)?[kMG]?", v) for v in ylabels), c

        fake = driver.execute_script(FAKE_DEEPEN)
        assert [r[2] for r in fake["rows"]] == ["+0.31", "\u2264 +0.12", "\u2264 -#3", "-2.50"], fake
        assert fake["rows"][0][4] == "12... Nc6 13. Bb5 a6", fake
        assert fake["rows"][2][4] == "12... f6 13. Nxe5 fxe5 14. Qh5+", fake
        assert fake["depth"].startswith("depth 3 (iteration 3)"), fake
        assert fake["tomove"] == "Black to move" and fake["squares"] == 64, fake
        assert fake["pieces"] == 32, fake
        assert fake["score"][0] and fake["plies"][1] == "0|1|2|3", fake

        ply = os.path.join(BIN, "ply")
        # 1. Kiwipete, watched while it runs: no forced mate ends it early
        cmd = [ply, "analyse", "--fen", KIWIPETE, "--coordinator", endpoint,
               "--owner-token", token, "--json", "--quiet"]
        cmd += ["--infinite"] if deepen else ["--movetime", "3000"]
        t_submit = time.time()
        run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # while it runs: the board, a line in SAN, the depth
        s1 = read_analysis(driver, lambda s: "running" in s["cls"] and s["rows"] and s["depth"],
                           "the analysis running with a line")
        t1 = time.time()
        driver.save_screenshot(shots[0])
        doc = status_as(port, token)
        mine = next(r for r in doc["runs"] if str(r["id"]) == s1["id"])
        assert mine["kind"] == "search" and mine["deepen"] == deepen, mine
        assert mine["state"] == "running", mine["state"]
        assert [q[:2] for q in s1["squares"]] == [list(x) for x in fen_squares(KIWIPETE)], \
            s1["squares"]
        for name, piece, text in s1["squares"]:  # a glyph on every occupied square, none elsewhere
            assert (text != "") == (piece != ""), (name, piece, text)
        assert s1["tomove"] == "White to move", s1["tomove"]
        m = re.match(r"depth (\d+)[ \u2013]", s1["depth"])
        assert m and int(m.group(1)) >= 1, s1["depth"]
        legal = legal_moves(KIWIPETE)
        assert legal is None or len(legal) == KIWIPETE_MOVES, legal
        uci_of = {l["san"]: l["move"] for l in (mine["search"] or {"lines": []})["lines"]}
        for rank, san, score, depth, pv in s1["rows"]:
            assert SAN_RE.fullmatch(san), san
            assert SCORE_RE.fullmatch(score), score
            assert int(depth) >= 1 and pv.startswith("1. " + san), (depth, pv)
            if legal is not None and san in uci_of and not san.startswith("O-O"):
                # a legal move (Stockfish's list), to the square its SAN names
                u = uci_of[san]
                assert u in legal and u[2:4] in san, (san, u, sorted(legal))
        # only its owner reads its lines: no token, or another owner's
        for who in (None, other):
            r = next(r for r in status_as(port, who)["runs"] if str(r["id"]) == s1["id"])
            assert r["answer_hidden"] and r["search"] is None, (who, r)
        print("page, %.1f s after the submission (%s): %s; depth %s; %d line(s), first %s" %
              (t1 - t_submit, "deepening" if deepen else "each root move once", s1["head"],
               m.group(1), len(s1["rows"]), s1["rows"][0]))
        # its owner stops it: a deepening analysis ends done, its deepest iteration the answer
        time.sleep(2)
        subprocess.run([ply, "cancel", s1["id"], "--coordinator", endpoint, "--owner-token",
                        token], check=True, timeout=60, stdout=subprocess.DEVNULL)
        run.communicate(timeout=60)
        s1b = read_analysis(driver, lambda s: "running" not in s["cls"], "the analysis stopped",
                            timeout=20, run_id=s1["id"])
        if deepen:
            assert "done" in s1b["cls"] and s1b["rows"], s1b
            assert s1b["depthChart"]["empty"] is None and s1b["depthChart"]["y"], s1b
            assert s1b["score"]["y"], s1b
        else:  # canceled: its client got no answer, nor does the page
            assert "canceled" in s1b["cls"] and not s1b["rows"], s1b
            assert s1b["note"] == "No lines: it ended canceled without an answer.", s1b
        for c in (s1b["score"], s1b["depthChart"]):
            for labels in (c["x"], c["y"]) if c else ():
                if labels:
                    assert len(set(labels.split("|"))) == len(labels.split("|")), c

        # 2. WAC.027 to depth 6, to its end: a published answer on the page
        run = subprocess.Popen([ply, "analyse", "--fen", WAC027, "-d", "6", "--coordinator",
                                endpoint, "--owner-token", token, "--json", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = run.communicate(timeout=150)
        assert run.returncode == 0, "ply analyse: exit %s: %s" % (run.returncode, err)
        s2 = read_analysis(driver, lambda s: "done" in s["cls"] and s["rows"] and
                           s["id"] != s1["id"], "the analysis of WAC.027 done", timeout=20)
        driver.save_screenshot(shots[1])
        assert [q[:2] for q in s2["squares"]] == [list(x) for x in fen_squares(WAC027)], s2
        assert s2["rows"][0][1] == WAC027_BEST and s2["rows"][0][2] == WAC027_SCORE, s2["rows"]
        assert s2["rows"][0][4].startswith("1. Qf8+ Rxf8 2. Rxf8#"), s2["rows"][0]
        if not deepen:
            assert s2["depthChart"]["empty"] == "no iterations: not a deepening analysis", s2
        a, b = png_pixels(shots[0]), png_pixels(shots[1])
        assert a != b, "the two screenshots are the same image"

        # another owner's token on the page: the board stays, the lines go
        driver.execute_script("document.getElementById('token').value = arguments[0];"
                              "document.querySelector('#owner button').click();", other)
        s3 = read_analysis(driver, lambda s: s["note"] is not None, "the lines hidden", timeout=20)
        assert not s3["rows"] and "owner" in s3["note"] and len(s3["squares"]) == 64, s3
        s3 = read_analysis(driver, lambda s: s["note"] is not None, "the lines hidden", timeout=20,
                           run_id=s1["id"])
        assert not s3["rows"] and len(s3["squares"]) == 64, s3
        urls = check_local(driver, origin)
        print("answer on the page: %s %s at depth %s; requests only to %s (%d URLs); "
              "screenshots %s, %s" % (s2["rows"][0][1], s2["rows"][0][2], s2["rows"][0][3],
                                      origin, len(urls), *shots))
    finally:
        if web:
            web.quit()
        if run and run.poll() is None:
            run.kill()
            run.wait()
        stop(*workers, coord)
    web.check_gone()
    assert coord.returncode == 0, "coordinator exit status %s" % coord.returncode
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    part = sys.argv[3] if len(sys.argv) > 3 else "perft"
    {"perft": perft_part, "analysis": analysis_part}[part]()


if __name__ == "__main__":
    main()
