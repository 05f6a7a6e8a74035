// A page's heartbeat to a door whose clock runs only while a page watches (the rules:
// gametable/presence.py). Game-agnostic: each door gives the URL, the request headers it needs
// (the table's X-Table-Token) and what the body carries, and handles the answer.
//
// While it watches a target it POSTs `{page, ...body}` (this page's random id first):
// - every `seconds` (the clock's `heartbeat`);
// - at once when asked (`check()`: the game shown, the display's clock at zero);
// - when the tab becomes visible again, and when the page comes back from the back/forward
//   cache;
// - `{page, leave: true}` as a keepalive request on pagehide, so the server pauses the clock as
//   soon as the last page goes away.
// One request at a time: a check asked for while one is on its way is dropped (the interval
// brings the next). An answer is handed on only while the target it was asked for is still
// the one watched (a newer state drawn meanwhile brings its own).
//
// Used by clock_presence.js (local backgammon, POST /api/games/{id}/clock) and checkers_main.js
// (the table's door, POST /api/tables/{id}/clock).

/** This page's id for the server's presence count (not a secret; random per load). */
export const PAGE_ID = `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

export class Heartbeat {
  /**
   * @param {object} options
   * @param {(answer: object) => void} options.onAnswer the server's answer (JSON) to a check
   *   asked for the target still watched
   */
  constructor({ onAnswer }) {
    this.onAnswer = onAnswer;
    this.target = null; // {url, headers, body, seconds} or null: nothing watched
    this.interval = 0;
    this.checking = false;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.check();
    });
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.check();
    });
    window.addEventListener("pagehide", () => this.leave());
  }

  /**
   * Watch `target` from now (null: stop): `url` to POST to, extra request `headers`, the
   * `body` sent with the page's id, and `seconds` between heartbeats. Nothing is sent at
   * once: call `check()` for that.
   */
  watch(target) {
    clearInterval(this.interval);
    this.interval = 0;
    this.target = target || null;
    if (!this.target) return;
    const ms = Math.max(1, Number(this.target.seconds) || 5) * 1000;
    this.interval = setInterval(() => this.check(), ms);
  }

  /** Whether a target is watched. */
  get watching() {
    return Boolean(this.target);
  }

  /** Tell the server this page is watching now; hand its answer on. */
  async check() {
    const target = this.target;
    if (!target || this.checking) return;
    this.checking = true;
    try {
      const response = await fetch(target.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", ...(target.headers || {}) },
        body: JSON.stringify({ page: PAGE_ID, ...(target.body || {}) }),
      });
      if (!response.ok) return;
      const answer = await response.json();
      if (this.target !== target) return; // a newer state was drawn meanwhile
      this.onAnswer(answer);
    } catch (err) {
      // the server is unreachable: the page's next action says so
    } finally {
      this.checking = false;
    }
  }

  /** The page is going away: the server pauses the clock unless another page watches. */
  leave() {
    const target = this.target;
    if (!target) return;
    try {
      fetch(target.url, {
        method: "POST",
        keepalive: true,
        headers: { "Content-Type": "application/json", ...(target.headers || {}) },
        body: JSON.stringify({ page: PAGE_ID, leave: true }),
      }).catch(() => {});
    } catch (err) {
      // nothing to do: the server pauses the clock when no heartbeat comes
    }
  }
}
