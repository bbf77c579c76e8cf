#!/usr/bin/env python3
"""A fake OpenAI-compatible model on Python's plain http.server, for `byomcp bench`'s burst
scenario: HTTP/1.0 (a new connection per request, closed after the answer) and the standard
listen queue of 5 (socketserver's request_queue_size), one thread per connection, as many
local inference wrappers are served. It answers the bench's realistic turns exactly as the Go
fake model does (agentsvc/loadgen: the same conversations file, the same SSE chunks as
llmtest): for a user message "script=<page>/<turn>", the calls of the next round of that turn
not yet made, then its answer.

Usage: python3 bench/slow-model.py --conversations FILE [--addr 127.0.0.1:0]
Prints "slow-model listening on http://HOST:PORT/" first; GET /stats gives {"calls": N}.
"""
import argparse
import itertools
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT_RE = re.compile(r"script=([a-z-]+)/(\d+)")
ARG_PIECE = 8  # llmtest's argPieceLen
CREATED = 1700000000

ids = itertools.count(1)
calls = itertools.count(1)
served = [0]
lock = threading.Lock()


def split_text(text):
    """llmtest's splitText: split after each space."""
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch == " ":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def answer(conversations, req):
    """Returns (text, tool_calls) for a request, or raises ValueError."""
    msgs = req.get("messages") or []
    last = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].get("role") == "user"), -1)
    if last < 0:
        raise ValueError("no user message")
    content = msgs[last].get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    m = SCRIPT_RE.search(content or "")
    if not m:
        raise ValueError("the user message names no script")
    turns = conversations.get(m.group(1)) or []
    i = int(m.group(2))
    if i >= len(turns):
        raise ValueError("no such script turn " + m.group(0))
    turn = turns[i]
    rounds = sum(1 for msg in msgs[last + 1:] if msg.get("role") == "assistant" and msg.get("tool_calls"))
    if rounds >= len(turn["rounds"]):
        return turn["answer"], []
    return "", turn["rounds"][rounds]


def chunk(cid, model, delta, finish, usage_null):
    c = {"id": cid, "object": "chat.completion.chunk", "created": CREATED, "model": model,
         "system_fingerprint": "fp_llmtest",
         "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    if usage_null:
        c["usage"] = None
    return c


def stream(req, text, tool_calls):
    """The SSE events of an answer, as llmtest sends them."""
    cid = "chatcmpl-slow%d" % next(ids)
    model = req.get("model", "")
    usage = bool((req.get("stream_options") or {}).get("include_usage"))
    deltas = [{"content": d} for d in split_text(text)]
    seqs = []
    for i, c in enumerate(tool_calls):
        args = json.dumps(c["arguments"], separators=(",", ":"))
        seq = [{"index": i, "id": "call_%d" % next(calls), "type": "function",
                "function": {"name": c["name"], "arguments": ""}}]
        seq += [{"index": i, "function": {"arguments": args[j:j + ARG_PIECE]}} for j in range(0, len(args), ARG_PIECE)]
        seqs.append(seq)
    for r in itertools.count():
        sent = False
        for seq in seqs:
            if r < len(seq):
                deltas.append({"tool_calls": [seq[r]]})
                sent = True
        if not sent:
            break
    chars = sum(len(m.get("content") or "") if isinstance(m.get("content"), str) else 0 for m in req.get("messages", []))
    events = [chunk(cid, model, {"role": "assistant", "content": "", "refusal": None}, None, usage)]
    events += [chunk(cid, model, d, None, usage) for d in deltas]
    events.append(chunk(cid, model, {}, "tool_calls" if tool_calls else "stop", usage))
    if usage:
        prompt = chars // 4 + 1
        events.append({"id": cid, "object": "chat.completion.chunk", "created": CREATED, "model": model,
                       "system_fingerprint": "fp_llmtest", "choices": [],
                       "usage": {"prompt_tokens": prompt, "completion_tokens": len(deltas), "total_tokens": prompt + len(deltas)}})
    for e in events:
        yield ("data: " + json.dumps(e, separators=(",", ":")) + "\n\n").encode()
    yield b"data: [DONE]\n\n"


class Handler(BaseHTTPRequestHandler):
    # BaseHTTPRequestHandler speaks HTTP/1.0 by default: one request per connection.
    conversations = {}

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        if self.path != "/stats":
            self.send_error(404)
            return
        with lock:
            body = json.dumps({"calls": served[0]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        if self.path not in ("/v1/chat/completions", "/chat/completions"):
            self.send_error(404)
            return
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            text, tool_calls = answer(self.conversations, req)
        except (ValueError, KeyError, TypeError) as e:
            body = json.dumps({"error": {"message": "slow-model: %s" % e, "type": "invalid_request_error"}}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        with lock:
            served[0] += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in stream(req, text, tool_calls):
            self.wfile.write(event)
            self.wfile.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", required=True, help="agentsvc/loadgen/testdata/conversations.json")
    ap.add_argument("--addr", default="127.0.0.1:0")
    a = ap.parse_args()
    with open(a.conversations, encoding="utf-8") as f:
        Handler.conversations = json.load(f)["conversations"]
    host, port = a.addr.rsplit(":", 1)
    srv = ThreadingHTTPServer((host, int(port)), Handler)  # listen queue: request_queue_size = 5
    srv.daemon_threads = True
    h, p = srv.server_address[:2]
    print("slow-model listening on http://%s:%d/" % (h, p), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
