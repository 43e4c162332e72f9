#!/usr/bin/python3
"""Status over HTTP (coordinator/http.h), end to end.

Starts ply-coordinator with --http on a free loopback port and a ply-worker
process, then:
  status   submits perft(5) of the start position with `ply perft`, polls
           /status (each answer valid by coordinator/status.schema.json) until the run is done with 4,865,609 nodes (the published
           count: chessprogramming.org/Perft_Results), checks /metrics with an
           independent parser (Debian's python3-prometheus-client) and that
           ply_nodes_total is the same count, and that / is one HTML page
           with no reference to another host;
  abuse    while a perft(6) runs (119,060,324), sends raw bytes: garbage, random binary, bad
           owner tokens (X-Ply-Owner-Token), a truncated request, a
           huge header, a large and a chunked body, other methods, unknown
           paths, slow and idle clients, many connections at once; each gets
           its 400/404/405/413 or is closed after the timeout, and then the
           coordinator still answers /status and a perft(4) run (197,281);
  token    a token file: 401 without it or with a wrong one, 200 with it
           (Bearer or Basic); a non-loopback address is refused without
           --insecure or without a token.
Usage: test_http.py BIN_DIR [status|abuse|token]  (all three by default)
Exit 77 when python3-prometheus-client or python3-jsonschema is missing.
"""
import base64
import json
import os
import random
import re
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

try:
    import jsonschema
    from prometheus_client.parser import text_string_to_metric_families
except ImportError as e:
    print("%s (python3-prometheus-client, python3-jsonschema): skipped" % e)
    sys.exit(77)

BIN = sys.argv[1]
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PERFT5 = 4865609  # chessprogramming.org/Perft_Results, initial position, depth 5
PERFT4 = 197281   # same table, depth 4
PERFT6 = 119060324  # same table, depth 6
TIMEOUT_MS = 1500  # --http-timeout-ms for these tests
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "coordinator",
                      "status.schema.json")


class Coordinator:
    """A ply-coordinator with --http on a free port, and optionally one worker."""

    def __init__(self, extra=(), worker=True, worker_id="w-http"):
        self.dir = tempfile.mkdtemp(prefix="ply-http-")
        self.log = open(os.path.join(self.dir, "coordinator.log"), "w+")
        self.proc = subprocess.Popen(
            [os.path.join(BIN, "ply-coordinator"), "--bind", "tcp://127.0.0.1:*",
             "--http", "127.0.0.1:0", "--http-timeout-ms", str(TIMEOUT_MS), *extra],
            stderr=self.log)
        self.endpoint = self.http = None
        deadline = time.time() + 20
        while time.time() < deadline and not (self.endpoint and self.http):
            time.sleep(0.05)
            self.log.seek(0)
            text = self.log.read()
            m = re.search(r"listening on (tcp://\S+)", text)
            self.endpoint = m.group(1) if m else None
            m = re.search(r"status over HTTP on http://127\.0\.0\.1:(\d+)/", text)
            self.http = int(m.group(1)) if m else None
            if self.proc.poll() is not None:
                break
        assert self.endpoint and self.http, "coordinator did not start:\n" + text
        self.worker = None
        if worker:
            self.worker = subprocess.Popen(
                [os.path.join(BIN, "ply-worker"), "--connect", self.endpoint, "--threads", "1",
                 "--hash", "16", "--id", worker_id], stderr=subprocess.DEVNULL)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        for p in (self.worker, self.proc):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        assert self.proc.returncode == 0, "coordinator exit status %s" % self.proc.returncode


def request(port, raw, timeout=10.0, read=True):
    """Sends raw bytes, returns (status code or None, headers text, body bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw)
        if not read:
            return s
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        if read:
            s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", head)
    return (int(m.group(1)) if m else None), head.decode("latin-1"), body


def get(port, path, headers=""):
    code, head, body = request(
        port, ("GET %s HTTP/1.1\r\nHost: localhost\r\n%s\r\n" % (path, headers)).encode())
    if "content-length" in head.lower():
        n = int(re.search(r"(?i)content-length: (\d+)", head).group(1))
        assert n == len(body), "Content-Length %d, body %d bytes" % (n, len(body))
    return code, head, body


def wait_workers(co, n=1):
    deadline = time.time() + 20
    while time.time() < deadline:
        code, _, body = get(co.http, "/status")
        if code == 200 and len(json.loads(body)["workers"]) >= n:
            return
        time.sleep(0.1)
    raise AssertionError("the worker did not connect")


def perft(co, depth):
    out = subprocess.run([os.path.join(BIN, "ply"), "perft", "-d", str(depth), "--coordinator",
                          co.endpoint, "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["nodes"]


def metrics(port):
    code, head, body = get(port, "/metrics")
    assert code == 200, code
    assert "text/plain; version=0.0.4" in head, head
    text = body.decode()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    # every family has HELP and TYPE lines (the parser says "unknown" without TYPE)
    for f in fams.values():
        assert f.type in ("counter", "gauge"), (f.name, f.type)
        assert f.documentation, f.name
    return fams, text


def sample(fams, family, name, **labels):
    for s in fams[family].samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise AssertionError("no sample %s%s" % (name, labels))


def test_status():
    wid = 'w"http\\1'  # a quote and a backslash: escaped in /metrics label values
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    # the schema refuses what it should: a negative count, an unknown state, a missing field
    assert not validator.is_valid({"coordinator": {}, "runs": [], "workers": []})
    co = Coordinator(worker_id=wid)
    try:
        wait_workers(co)
        run = subprocess.Popen([os.path.join(BIN, "ply"), "perft", "-d", "5", "--coordinator",
                                co.endpoint, "--json"], stdout=subprocess.PIPE, text=True)
        seen, done = set(), None
        deadline = time.time() + 120
        while time.time() < deadline and not done:
            code, head, body = get(co.http, "/status")
            assert code == 200 and "application/json" in head, (code, head)
            st = json.loads(body)
            validator.validate(st)  # the schema kept in the repo
            for r in st["runs"]:
                seen.add(r["state"])
                if r["state"] == "done":
                    done = r
            time.sleep(0.05)
        assert done, "no run done in /status; states seen: %s" % seen
        assert run.wait(60) == 0
        assert json.loads(run.stdout.read())["nodes"] == PERFT5
        assert done["kind"] == "perft" and done["depth"] == 5 and done["fen"] == START_FEN, done
        assert done["nodes"] == PERFT5, done["nodes"]
        assert done["jobs"]["done"] == done["jobs"]["total"] > 0, done["jobs"]
        assert done["jobs"]["in_flight"] == 0 and done["jobs"]["queued"] == 0, done["jobs"]
        assert done["progress"] == 1 and done["eta_ms"] == 0, done
        assert st["coordinator"]["nodes_total"] == PERFT5
        w = st["workers"][0]
        assert w["worker_id"] == wid and w["threads"] == 1 and w["hash_mib"] == 16, w
        assert w["excluded"] is False and w["nodes"] == PERFT5 and w["jobs_done"] > 0, w
        assert 0 <= w["heartbeat_age_ms"] < 5000, w
        fams, text = metrics(co.http)
        assert sample(fams, "ply_nodes", "ply_nodes_total") == PERFT5
        assert sample(fams, "ply_workers_connected", "ply_workers_connected") == 1
        assert sample(fams, "ply_runs", "ply_runs", state="done") == 1
        assert sample(fams, "ply_runs_done", "ply_runs_done_total") == 1
        assert sample(fams, "ply_verify_mismatches", "ply_verify_mismatches_total") == 0
        assert sample(fams, "ply_jobs", "ply_jobs", state="in_flight") == 0
        # the label value comes back unescaped by the parser: it was escaped right
        sample(fams, "ply_worker_nodes_per_second", "ply_worker_nodes_per_second", worker=wid)
        assert 'worker="w\\"http\\\\1"' in text, text
        code, head, body = get(co.http, "/")
        assert code == 200 and "text/html" in head, (code, head)
        page = body.decode()
        assert page.startswith("<!DOCTYPE html>") and "<canvas" in page and "status" in page
        assert "http://" not in page and "https://" not in page, "the page refers to another host"
        assert "default-src 'none'" in head, head
        print("status: perft(5) = %d in /status and /metrics; states seen %s" %
              (PERFT5, sorted(seen)))
    finally:
        co.stop()


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def expect(port, raw, want, what):
    code, head, _ = request(port, raw)
    assert code == want, "%s: got %s, want %s\n%s" % (what, code, want, head)


def closed_within(sock, seconds):
    """True when the server closes @sock within @seconds."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionResetError:
        return True
    finally:
        sock.close()


def test_abuse():
    co = Coordinator()
    try:
        wait_workers(co)
        p = co.http
        get(p, "/status")
        rss0 = rss_kib(co.proc.pid)
        # a run goes on meanwhile: its answer must be right
        run = subprocess.Popen([os.path.join(BIN, "ply"), "perft", "-d", "6", "--coordinator",
                                co.endpoint, "--json"], stdout=subprocess.PIPE, text=True)
        expect(p, b"garbage\r\n\r\n", 400, "garbage")
        expect(p, b"\x00\x01\x02\xff" * 64, 400, "binary")
        expect(p, b"GET /status HTTP/9.9\r\n\r\n", 400, "bad version")
        expect(p, b"GET /status HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n", 400, "header")
        # an owner token that is not one (the rule of Submit.owner_token: 16..128 printable
        # ASCII bytes), or two of them: 400; a good one reads /status
        for bad in (b"short", b"x" * 129, b"sixteen-bytes-ok\x01x", b"0123456789abcdef\r\n"
                    b"X-Ply-Owner-Token: 0123456789abcdef"):
            expect(p, b"GET /status HTTP/1.1\r\nHost: x\r\nX-Ply-Owner-Token: " + bad +
                   b"\r\n\r\n", 400, "owner token %r" % bad[:20])
        expect(p, b"GET /status HTTP/1.1\r\nHost: x\r\nx-ply-owner-token: 0123456789abcdef \r\n"
               b"\r\n", 200, "owner token")
        # a truncated request: the client ends its side before the blank line
        s = request(p, b"GET /status HTTP/1.1\r\nHost: x\r\n", read=False)
        s.shutdown(socket.SHUT_WR)
        data = s.recv(4096)
        s.close()
        assert data.startswith(b"HTTP/1.1 400"), data
        # a truncated request and a client gone before its answer: the shutdown after the 400
        # fails, which crashed the coordinator (segfault in on_shutdown, found by a new
        # user's trial); closed plainly, and reset (SO_LINGER 0)
        for i in range(20):
            s = request(p, b"GET /status HTTP/1.1\r\n", read=False)
            if i % 2:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        time.sleep(0.5)
        assert co.alive(), "the coordinator died of clients gone before their answer"
        expect(p, b"GET /status HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n", 413, "header")
        expect(p, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", 413, "long path")
        expect(p, b"GET /status HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000, 413,
               "body")
        expect(p, b"POST /status HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" +
               b"800\r\n" + b"x" * 2048 + b"\r\n0\r\n\r\n", 413, "chunked body")
        expect(p, b"POST /status HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi", 405, "POST")
        expect(p, b"DELETE / HTTP/1.1\r\n\r\n", 405, "DELETE")
        expect(p, b"GET /nope HTTP/1.1\r\n\r\n", 404, "unknown path")
        expect(p, b"GET /status/../etc HTTP/1.1\r\n\r\n", 404, "other path")
        expect(p, b"GET /status?x=1 HTTP/1.1\r\n\r\n", 200, "query")
        expect(p, b"HEAD /metrics HTTP/1.1\r\n\r\n", 200, "HEAD")
        rng = random.Random(12)
        for _ in range(200):  # random bytes: an answer (400/413) or a close, never a crash
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 600)))
            code, _, _ = request(p, junk + b"\r\n\r\n")
            assert code in (400, 404, 405, 413, None), code
        assert co.alive()
        # slow and idle clients are closed after the timeout (1.5 s here), not served
        slow = request(p, b"GET /sta", read=False)
        idle = socket.create_connection(("127.0.0.1", p))
        t0 = time.time()
        assert closed_within(slow, TIMEOUT_MS / 1000 + 3), "slow client not closed"
        assert closed_within(idle, TIMEOUT_MS / 1000 + 3), "idle client not closed"
        took = time.time() - t0
        assert took >= TIMEOUT_MS / 1000 - 0.3, "closed before the timeout (%.2f s)" % took
        # many connections: past the cap they are closed at once, and the rest time out
        time.sleep(0.5)  # the connections above are all closed on the server's side too
        many = [socket.create_connection(("127.0.0.1", p)) for _ in range(100)]
        time.sleep(0.3)
        # all at once (well within the 1.5 s timeout): a closed socket reads as ready
        ready, _, _ = select.select(many, [], [], 0.2)
        kept = sum(s not in ready for s in many[:32])
        refused = sum(s in ready for s in many[60:])
        for s in many:
            s.close()
        assert kept == 32, "only %d of the first 32 connections were kept open" % kept
        assert refused >= 30, "only %d of the connections past the cap were closed" % refused
        # and the coordinator still works: /status, a perft run with the right count
        time.sleep(0.2)
        code, _, body = get(p, "/status")
        assert code == 200 and json.loads(body)["workers"], code
        assert perft(co, 4) == PERFT4
        fams, _ = metrics(p)
        assert sample(fams, "ply_nodes", "ply_nodes_total") == PERFT6 + PERFT4
        assert co.alive()
        assert run.wait(120) == 0 and json.loads(run.stdout.read())["nodes"] == PERFT6
        rss1 = rss_kib(co.proc.pid)
        # bounded: nothing of the ~400 connections stays (a generous bound for the allocator)
        assert rss1 - rss0 < 16 * 1024, "resident memory grew from %d to %d KiB" % (rss0, rss1)
        print("abuse: resident memory %d KiB before, %d KiB after" % (rss0, rss1))
        print("abuse: 400/404/405/413 as expected, slow and idle clients closed after %.1f s, "
              "%d of 40 connections past the cap closed at once; perft(6) = %d meanwhile, "
              "perft(4) = %d after" % (took, refused, PERFT6, PERFT4))
    finally:
        co.stop()


def test_token():
    d = tempfile.mkdtemp(prefix="ply-http-token-")
    tok = os.path.join(d, "token")
    with open(tok, "w") as f:
        f.write("s3cret-token-0123\n")
    co = Coordinator(extra=("--http-token-file", tok), worker=False)
    try:
        p = co.http
        code, head, _ = get(p, "/status")
        assert code == 401 and "WWW-Authenticate: Basic" in head, (code, head)
        assert get(p, "/metrics", "Authorization: Bearer wrong\r\n")[0] == 401
        assert get(p, "/", "Authorization: Bearer s3cret-token-0123-and-more\r\n")[0] == 401
        assert get(p, "/status", "Authorization: Bearer s3cret-token-0123\r\n")[0] == 200
        basic = base64.b64encode(b"anyone:s3cret-token-0123").decode()
        assert get(p, "/", "Authorization: Basic %s\r\n" % basic)[0] == 200
        bad = base64.b64encode(b"anyone:s3cret").decode()
        assert get(p, "/", "Authorization: Basic %s\r\n" % bad)[0] == 401
    finally:
        co.stop()
    coord = os.path.join(BIN, "ply-coordinator")

    def refused(*args, code=None):
        out = subprocess.run([coord, "--bind", "tcp://127.0.0.1:*", *args], capture_output=True,
                             text=True, timeout=30)
        assert out.returncode != 0, args
        assert code is None or out.returncode == code, (args, out.returncode, out.stderr)
        return out.stderr

    assert "needs --insecure or --curve" in refused("--http", "0.0.0.0:0")
    assert "token" in refused("--http", "0.0.0.0:0", "--insecure")
    # a malformed address is a usage error, as --http-timeout-ms 0
    assert "not ADDR:PORT" in refused("--http", "localhost", code=2)
    assert "not ADDR:PORT" in refused("--http", "127.0.0.1", code=2)
    assert "not ADDR:PORT" in refused("--http", "localhost:58181", code=2)
    assert "not ADDR:PORT" in refused("--http", "127.0.0.1:99999", code=2)
    assert "needs --http" in refused("--http-token-file", tok)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    err = refused("--http", "127.0.0.1:%d" % busy.getsockname()[1])
    busy.close()
    assert "cannot serve HTTP on" in err and "address already in use" in err, err
    with open(tok, "w") as f:
        f.write("\n")
    assert "is empty" in refused("--http", "127.0.0.1:0", "--http-token-file", tok)
    with open(tok, "w") as f:
        f.write("ab\n")
    assert "shorter than 16 characters" in refused("--http", "127.0.0.1:0", "--http-token-file", tok)
    print("token: 401 without or with a wrong token, 200 with it (Bearer, Basic); "
          "non-loopback refused without --insecure and a token")


def main():
    which = sys.argv[2:] or ["status", "abuse", "token"]
    for name in which:
        globals()["test_" + name]()


if __name__ == "__main__":
    main()
