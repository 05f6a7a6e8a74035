"""The one clock display (``static/js/clock.js``, ``ClockDisplay``), run by Node with a small
stand-in for the page's elements (a row's classes read in sorted order), the animation frames
and the time: fed each door's clock JSON as the server sends it (local backgammon's
``gametable/presence.py`` shape, with ``paused`` and ``warning``; the shared table's
``view.clock``, as online backgammon and checkers get it), it counts the running side down
from the answer's arrival, shows the last seconds in tenths and the warning colour, calls
``onZero`` at most every 500 ms while the running clock shows zero (never while the page
counts alone), costs a throttled tab display accuracy and never time, and goes on counting
when the same clock is drawn again. Beside it, local backgammon's presence
(``clock_presence.js``) asks ``POST /api/games/{id}/clock`` when a game is shown and when the
display reaches zero."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from node_support import STORE_JS, needs_node, run_node

pytestmark = needs_node

HARNESS = r"""
class Classes {
  constructor(node) { this.node = node; }
  get set() { return new Set(this.node.className.split(" ").filter(Boolean)); }
  contains(c) { return this.set.has(c); }
  toggle(c, on) {
    const s = this.set;
    if (on === undefined) on = !s.has(c);
    if (on) s.add(c); else s.delete(c);
    this.node.className = [...s].join(" ");
    return on;
  }
}
class Node {
  constructor(tag) {
    this.tag = tag; this.children = []; this.className = ""; this.dataset = {}; this.attrs = {};
    this.textContent = ""; this.id = ""; this.hidden = false; this.title = "";
    this.classList = new Classes(this);
  }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  append(...nodes) { this.children.push(...nodes); }
  appendChild(node) { this.children.push(node); return node; }
  replaceChildren(...nodes) { this.children = nodes; }
}
let now = 1000;
const frames = new Map();
let nextFrame = 1;
const listeners = {};
Object.defineProperty(globalThis, "performance", { value: { now: () => now }, configurable: true });
globalThis.requestAnimationFrame = (f) => { frames.set(nextFrame, f); return nextFrame++; };
globalThis.cancelAnimationFrame = (id) => { frames.delete(id); };
const on = (type, f) => { (listeners[type] ||= []).push(f); };
globalThis.document = { createElement: (tag) => new Node(tag), addEventListener: on,
  visibilityState: "visible", getElementById() { return null; },
  querySelector() { return null; }, querySelectorAll() { return []; } };
""" + STORE_JS + r"""
globalThis.window = { addEventListener: on, localStorage: new Store(),
  sessionStorage: new Store(),
  location: { pathname: "/", search: "", hash: "", origin: "http://page" } };
globalThis.location = window.location;
const asked = [];
let version = 3;
let heartbeatClock = null;
globalThis.fetch = async (path, init) => {
  asked.push([path, JSON.parse(init.body)]);
  return { ok: true, json: async () => ({ version, clock: heartbeatClock }) };
};
globalThis.setInterval = () => 0;
globalThis.clearInterval = () => {};

/** Let `ms` pass, then run the frames asked for (one frame: a throttled tab's). */
function pass(ms) {
  now += ms;
  const due = [...frames.values()];
  frames.clear();
  for (const f of due) f();
}

const [clockUrl, presenceUrl, onlineUrl] = process.argv.slice(2);
const { ClockDisplay, formatClock } = await import(clockUrl);
const { LocalClock, localCaption } = await import(presenceUrl);
const { onlineCaption } = await import(onlineUrl);

function rows(root) {
  const out = {};
  const clockRows = root.children.filter(
    (n) => n.className.startsWith("clock") && n.dataset.color);
  for (const row of clockRows) {
    const [, name, time] = row.children;
    out[row.dataset.color] = { name: name.textContent, time: time.textContent, id: time.id,
      classes: row.className.split(" ").sort().join(" "), title: row.title };
  }
  return out;
}
const caption = (root) => root.children[root.children.length - 1].textContent;
const order = (root) => root.children.filter((n) => n.dataset.color).map((n) => n.dataset.color);
const out = {};

// --- local backgammon: gametable/presence.py's clock, with paused, heartbeat and warning
{
  const root = new Node("div");
  root.hidden = true;
  let zeros = 0;
  const d = new ClockDisplay(root, { sides: ["white", "black"], caption: localCaption,
      onZero: () => zeros++ });
  const clock = { control: "bullet", reserve: 3, increment: 1, remaining: { white: 3, black: 3 },
    running: "white", paused: null, heartbeat: 5, warning: 10 };
  d.show(clock, { names: { white: "You", black: "Computer" }, over: false });
  out.local = { order: order(root), hidden: root.hidden, caption: caption(root),
      first: rows(root) };
  pass(1250);
  out.local.later = rows(root);
  pass(1700); // 0.05 s left
  out.local.zerosBefore = zeros;
  pass(100); // at zero: onZero at once
  out.local.atZero = rows(root).white.time;
  out.local.zeros = [zeros];
  pass(200); pass(200);
  out.local.zeros.push(zeros); // not again within 500 ms
  pass(200);
  out.local.zeros.push(zeros); // 600 ms on: again
  d.show({ ...clock, remaining: { white: 0, black: 2.5 }, running: null, paused: null },
    { over: true });
  out.local.over = rows(root);
  out.local.framesAfterOver = frames.size;
  const p = new ClockDisplay(new Node("div"), { sides: ["white", "black"], caption: localCaption });
  p.show({ ...clock, reserve: 600, increment: 5, control: "rapid", remaining: { white: 600,
      black: 431.2 }, running: null, paused: "black" },
    { names: { white: "White", black: "Black" } });
  out.local.paused = rows(p.root);
  out.local.pausedCaption = caption(p.root);
  out.local.pausedFrames = frames.size;
}

// --- online backgammon: the shared table's view.clock (no paused, no warning)
{
  const root = new Node("div");
  let zeros = 0;
  const d = new ClockDisplay(root, { sides: ["white", "black"], idPrefix: "online-clock-",
      caption: onlineCaption, onZero: () => zeros++ });
  const clock = { control: "blitz", reserve: 180, increment: 4, remaining: { white: 150.5,
      black: 180 }, running: "black" };
  d.show(clock, { names: { white: "You", black: "Bob" }, over: false });
  out.online = { caption: caption(root), first: rows(root) };
  pass(2000);
  d.show(clock, { names: { white: "You", black: "Bob" },
      over: false }); // the same view drawn again
  out.online.again = rows(root).black.time;
  pass(30000); // a throttled tab: one frame in 30 s, the time all counted
  out.online.throttled = rows(root).black.time;
  const fresh = { ...clock, remaining: { white: 150.5, black: 152.25 }, running: "white" };
  d.show(fresh, { names: { white: "You", black: "Bob" }, over: false });
  out.online.fresh = rows(root);
  d.stop();
  out.online.stopped = [root.hidden, frames.size];
  out.online.zeros = zeros;
  const bullet = new ClockDisplay(new Node("div"), { sides: ["white", "black"],
      caption: onlineCaption });
  bullet.show({ control: "bullet", reserve: 3, increment: 1, remaining: { white: 3, black: 3 },
      running: null });
  out.online.bullet = caption(bullet.root);
  frames.clear();
}

// --- checkers: the table's view.clock, black first; the page counts the computer alone
{
  const root = new Node("div");
  let zeros = 0;
  const d = new ClockDisplay(root, {
    sides: ["black", "white"],
    caption: (c) => `${c.control}: ${c.reserve} s each`,
    onZero: () => zeros++,
  });
  const clock = { control: "bullet", reserve: 3, increment: 1, remaining: { black: 2.5, white: 1 },
      running: "black" };
  d.show(clock, { names: { black: "You", white: "Computer" }, over: false });
  out.checkers = { order: order(root), first: rows(root) };
  pass(500);
  d.runLocally("white"); // the move sent: the computer's clock counts down until the answer
  out.checkers.local = [d.local, rows(root)];
  pass(1500); // the computer's clock at zero on the page: no check while it counts alone
  out.checkers.localZero = [rows(root).white.time, zeros];
  d.show(clock, { names: { black: "You", white: "Computer" },
      over: false }); // the answer failed: the view again
  out.checkers.back = [d.local, rows(root)];
  d.show({ ...clock, remaining: { black: 2, white: 0 }, running: null }, { over: true });
  out.checkers.flagged = rows(root);
  d.show(null);
  out.checkers.none = [root.hidden, frames.size];
  frames.clear();
}

// --- local backgammon's presence beside the display: it asks when a game is shown and when
// the display reaches zero; the display itself asks nothing
{
  const root = new Node("div");
  let stale = [];
  const c = new LocalClock(root, { onStale: (v) => stale.push(v) });
  const game = { id: "g1", version: 3, result: null, players: { white: { name: "You" },
      black: { name: "Computer" } },
    clock: { control: "bullet", reserve: 3, increment: 1, remaining: { white: 0.2, black: 3 },
      running: "white", paused: null, heartbeat: 5, warning: 10 } };
  const before = asked.length;
  c.show(game);
  await new Promise((r) => setTimeout(r, 0));
  out.presence = { shown: asked.slice(before), rows: rows(root) };
  // a heartbeat's fresher clock, then the same state drawn again: the fresher clock stays
  heartbeatClock = { ...game.clock, remaining: { white: 0.15, black: 3 } };
  await c.check();
  c.show(game);
  out.presence.fresher = rows(root).white.time;
  heartbeatClock = null;
  version = 4; // the server recorded the timeout meanwhile
  const zeroFrom = asked.length;
  pass(300);
  await new Promise((r) => setTimeout(r, 0));
  out.presence.atZero = asked.slice(zeroFrom);
  out.presence.stale = stale;
  frames.clear();
}

// --- the server out of reach: a clock held by presence (the local doors) stops where the
// server stops it (PRESENCE_SECONDS after it last heard from the page); a room's counts on
{
  const root = new Node("div");
  const d = new ClockDisplay(root, { sides: ["white", "black"], caption: localCaption });
  const clock = { control: "blitz", reserve: 180, increment: 4, remaining: { white: 100,
      black: 180 }, running: "white", paused: null, heartbeat: 5, warning: 10 };
  d.show(clock, { names: { white: "You", black: "Bob" }, over: false });
  const notice = () => root.children.find((n) => n.className === "clock-offline");
  pass(4000);
  d.heard(now - 1000); // a heartbeat sent 1 s ago was answered (its answer not shown)
  d.connection(false); // the next one failed
  pass(3000);
  out.offline = { counting: [rows(root).white.time, d.held, notice().hidden, notice().textContent,
      root.dataset.connection] };
  pass(5000); pass(20000); // 12 s after the last word heard: held at 10 s past it
  out.offline.held = [rows(root).white, d.held, root.dataset.connection, frames.size];
  d.connection(true);
  d.heard(now); // reached again: counted on from the held figure, as the server resumes it
  pass(1000);
  out.offline.back = [rows(root).white.time, d.held, notice().hidden];
  const room = new ClockDisplay(new Node("div"), { sides: ["white", "black"],
      caption: onlineCaption });
  room.show({ control: "blitz", reserve: 180, increment: 4, remaining: { white: 100, black: 180 },
    running: "white" });
  room.connection(false);
  pass(30000);
  out.offline.room = [rows(room.root).white.time, room.held,
      room.root.children.find((n) => n.className === "clock-offline").textContent];
  frames.clear();
}

out.format = [formatClock(600), formatClock(59.01), formatClock(10), formatClock(9.96),
    formatClock(0.04), formatClock(-2), formatClock(75, 0)];
console.log(JSON.stringify(out));
"""


def test_out_of_reach_the_display_follows_each_doors_rule(out: dict[str, Any]) -> None:
    """Local doors: the running clock stops PRESENCE_SECONDS after the server last heard from
    the page (gametable/presence.py), and the box says the connection is lost; reached again,
    it counts on from there. A room's clock counts on (the room charges a disconnected side)."""
    offline = out["offline"]
    lost = ("Connection lost: reconnecting… The server stops a clock 10 s after it last hears "
            "from this page, so the clock shown stops there too.")
    assert offline["counting"] == ["1:33", False, False, lost, "lost"]
    white, held, connection, frames = offline["held"]
    # heard 1 s before the 4th second: held at 100 - 3 - 10
    assert (white["time"], white["classes"], held, connection, frames) == (
        "1:27", "clock held running", True, "lost", 0)
    assert white["title"] == "Held: the server has not heard from this page"
    assert offline["back"] == ["1:26", False, True]
    assert offline["room"][:2] == ["1:10", False]
    # a room's page says the connection is lost in its room panel: its clock box only what
    # becomes of the clock (the room charges the side to act meanwhile)
    assert offline["room"][2] == (
        "While this page is cut off, the clock of the side to play runs on at the server"
        " (though not while the server itself is down).")


def run_harness(tmp_path: Path) -> dict[str, Any]:
    return run_node(tmp_path, HARNESS, "clock.js", "clock_presence.js", "online_tables.js")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_harness(tmp_path_factory.mktemp("clock-js"))


def test_local_backgammon_clock(out: dict[str, Any]) -> None:
    local = out["local"]
    assert local["order"] == ["white", "black"]
    assert local["hidden"] is False
    assert local["caption"] == "Bullet: 3 s + 1 s a turn"
    assert local["first"]["white"] == {"name": "You", "time": "0:03.0", "id": "clock-white",
                                       "classes": "clock running warning", "title": ""}
    assert local["first"]["black"]["classes"] == "clock warning"
    # counted down from the answer's arrival, in tenths in the last seconds
    assert local["later"]["white"]["time"] == "0:01.7"
    assert local["later"]["black"]["time"] == "0:03.0"
    # zero: onZero at once, then at most every 500 ms
    assert local["zerosBefore"] == 0
    assert local["atZero"] == "0:00.0"
    assert local["zeros"] == [1, 1, 2]
    # over: nothing runs, the side at zero flagged, no frame asked for
    assert local["over"]["white"]["classes"] == "clock flagged warning"
    assert local["over"]["black"]["classes"] == "clock warning"
    assert local["framesAfterOver"] == 0
    # a clock paused while no page watches (the local door's own)
    assert local["paused"]["black"] == {"name": "Black", "time": "7:12", "id": "clock-black",
                                        "classes": "clock paused",
                                        "title": "Paused: waiting for the page"}
    assert local["paused"]["white"]["time"] == "10:00"
    assert local["pausedCaption"] == "Rapid: 10 min + 5 s a turn"
    assert local["pausedFrames"] == 0


def test_online_backgammon_clock(out: dict[str, Any]) -> None:
    online = out["online"]
    assert online["caption"] == "Blitz: 3 min + 4 s a turn (the server keeps the time)"
    assert online["first"]["white"] == {"name": "You", "time": "2:31", "id": "online-clock-white",
                                        "classes": "clock", "title": ""}
    assert online["first"]["black"]["classes"] == "clock running"
    # the same view drawn again goes on counting from the first arrival
    assert online["again"] == "2:58"
    # a throttled tab's one late frame shows all the time that passed
    assert online["throttled"] == "2:28"
    # a fresh reading starts a new count
    assert online["fresh"]["black"]["time"] == "2:33"
    assert online["fresh"]["white"]["classes"] == "clock running"
    assert online["stopped"] == [True, 0]
    assert online["zeros"] == 0
    assert online["bullet"] == "Bullet: 3 s + 1 s a turn (the server keeps the time)"


def test_checkers_clock(out: dict[str, Any]) -> None:
    checkers = out["checkers"]
    assert checkers["order"] == ["black", "white"]
    assert checkers["first"]["black"]["time"] == "0:02.5"
    assert checkers["first"]["black"]["classes"] == "clock running warning"
    local, shown = checkers["local"]
    assert local is True
    assert shown["black"]["time"] == "0:02.0" and shown["black"]["classes"] == "clock warning"
    assert shown["white"]["classes"] == "clock running warning"
    assert checkers["localZero"] == ["0:00.0", 0]
    # the same view shown again after a page's own count: the server's figures again
    local, shown = checkers["back"]
    assert local is False
    assert shown["black"]["time"] == "0:02.5" and shown["white"]["time"] == "0:01.0"
    assert checkers["flagged"]["white"]["classes"] == "clock flagged warning"
    assert checkers["flagged"]["black"]["classes"] == "clock warning"
    assert checkers["none"] == [True, 0]


def test_local_presence_beside_the_display(out: dict[str, Any]) -> None:
    presence = out["presence"]
    # a game shown: the page says it watches, with the version drawn
    assert presence["shown"] == [["/api/games/g1/clock", {"page": presence["shown"][0][1]["page"],
                                                          "shown": 3}]]
    assert presence["rows"]["white"]["time"] == "0:00.2"
    assert presence["fresher"] == "0:00.1"
    # the display at zero: the presence asks again; the server's newer state is read
    assert [path for path, _ in presence["atZero"]] == ["/api/games/g1/clock"]
    assert presence["stale"] == [4]


def test_format(out: dict[str, Any]) -> None:
    assert out["format"] == ["10:00", "1:00", "0:10", "0:09.9", "0:00.0", "0:00.0", "1:15"]
