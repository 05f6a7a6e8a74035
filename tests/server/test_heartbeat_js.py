"""The page's heartbeat (``static/js/heartbeat.js``), run by Node with the browser's events,
timers and ``fetch`` stood in for: while it watches a target it POSTs ``{page, ...body}`` with
the target's headers (the table's token) every ``seconds``, when asked, when the tab is visible
again and when the page comes back from the back/forward cache; one request at a time; an
answer about a target no longer watched is dropped; on ``pagehide`` a keepalive
``{page, leave: true}``; nothing once it watches nothing."""

from __future__ import annotations

from typing import Any

import pytest

from node_support import needs_node, run_node

pytestmark = needs_node

HARNESS = r"""
const listeners = {};
const on = (type, f) => { (listeners[type] ||= []).push(f); };
const fire = (type, event = {}) => { for (const f of listeners[type] || []) f(event); };
globalThis.document = { addEventListener: on, visibilityState: "visible" };
globalThis.window = { addEventListener: on };
const timers = [];
globalThis.setInterval = (f, ms) => { timers.push({ f, ms, on: true }); return timers.length; };
globalThis.clearInterval = (id) => { if (id) timers[id - 1].on = false; };
const asked = [];
let release = null; // a request held until released
let hold = false;
let answers = 0;
globalThis.fetch = (url, init) => {
  asked.push({ url, method: init.method, keepalive: Boolean(init.keepalive),
    token: init.headers["X-Table-Token"] || null, type: init.headers["Content-Type"],
    body: JSON.parse(init.body) });
  const response = { ok: true, json: async () => ({ n: ++answers }) };
  if (!hold) return Promise.resolve(response);
  return new Promise((resolve) => { release = () => resolve(response); });
};
const tick = () => new Promise((r) => setTimeout(r, 0));

const { Heartbeat, PAGE_ID } = await import(process.argv[2]);
const got = [];
const beat = new Heartbeat({ onAnswer: (answer) => got.push(answer.n) });
const out = { page: PAGE_ID };

await beat.check(); // nothing watched: nothing sent
fire("pagehide");
out.idle = [asked.length, beat.watching];

const table = { url: "/api/tables/T1/clock", headers: { "X-Table-Token": "tok" }, body: {},
  seconds: 5 };
beat.watch(table);
out.timers = timers.filter((t) => t.on).map((t) => t.ms);
timers.filter((t) => t.on)[0].f(); // the interval
await tick();
fire("visibilitychange"); // back to the tab
await tick();
fire("pageshow", { persisted: false }); // a fresh load: the page asks by itself
fire("pageshow", { persisted: true }); // back from the back/forward cache
await tick();
out.beats = asked.splice(0);
out.got = got.splice(0);

// one request at a time; an answer about a target no longer watched is dropped
hold = true;
beat.check();
beat.check(); // dropped: one on its way
out.inFlight = asked.splice(0).length;
beat.watch({ ...table, body: { shown: 4 } });
release();
await tick(); await tick();
out.dropped = got.splice(0);
hold = false;
await beat.check();
out.next = [asked.splice(0).map((a) => a.body), got.splice(0)];

// the page closes: a keepalive leave, with the token
fire("pagehide");
out.leave = asked.splice(0);

// nothing watched: the interval stops, nothing more is sent
beat.watch(null);
out.stopped = [timers.filter((t) => t.on).length, beat.watching];
await beat.check();
fire("pagehide");
out.after = asked.length;
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_node(tmp_path_factory.mktemp("heartbeat-js"), HARNESS, "heartbeat.js")


def test_nothing_is_sent_while_nothing_is_watched(out: dict[str, Any]) -> None:
    assert out["idle"] == [0, False]
    assert out["stopped"] == [0, False]
    assert out["after"] == 0
    assert out["page"].startswith("p") and len(out["page"]) <= 64


def test_heartbeats_on_the_interval_the_tab_shown_again_and_back_from_the_cache(
    out: dict[str, Any],
) -> None:
    assert out["timers"] == [5000]
    page = out["page"]
    beat = {"url": "/api/tables/T1/clock", "method": "POST", "keepalive": False,
            "token": "tok", "type": "application/json", "body": {"page": page}}  # fmt: skip
    assert out["beats"] == [beat, beat, beat]
    assert out["got"] == [1, 2, 3]


def test_one_request_at_a_time_and_a_stale_answer_is_dropped(out: dict[str, Any]) -> None:
    assert out["inFlight"] == 1
    assert out["dropped"] == []
    assert out["next"] == [[{"page": out["page"], "shown": 4}], [5]]


def test_a_keepalive_leave_on_pagehide(out: dict[str, Any]) -> None:
    assert out["leave"] == [
        {"url": "/api/tables/T1/clock", "method": "POST", "keepalive": True, "token": "tok",
         "type": "application/json", "body": {"page": out["page"], "leave": True}},
    ]  # fmt: skip
