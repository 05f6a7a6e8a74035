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
// Each check also says whether the server was reached (`onContact`): {reached: true, sentAt}
// (performance.now() when the request the server answered was sent: it heard from this page
// no earlier) or {reached: false} when the request failed on its way (the server is down or
// out of reach). The clock display stops the running clock where the server stops it and says
// the connection is lost (clock.js). While out of reach it asks again every second, and at
// once when the browser says it is back online, so the server's figures come soon after.
//
// Used by clock_presence.js (local backgammon, POST /api/games/{id}/clock) and checkers_main.js
// (the table's door, POST /api/tables/{id}/clock).

/** This page's id for the server's presence count (not a secret; random per load). */
export const PAGE_ID = `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
/** While the server cannot be reached: ms between tries. */
export const RETRY_MS = 1000;

export class Heartbeat {
  /**
   * @param {object} options
   * @param {(answer: object) => void} options.onAnswer the server's answer (JSON) to a check
   *   asked for the target still watched
   * @param {(contact: {reached: boolean, sentAt?: number}) => void} [options.onContact] whether
   *   a check reached the server (and when the request it answered was sent)
   */
  constructor({ onAnswer, onContact = () => {} }) {
    this.onAnswer = onAnswer;
    this.onContact = onContact;
    this.target = null; // {url, headers, body, seconds} or null: nothing watched
    this.interval = 0;
    this.retry = 0;
    this.reached = true; // the last check reached the server
    this.checking = false;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.check();
    });
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.check();
    });
    window.addEventListener("pagehide", () => this.leave());
    window.addEventListener("online", () => this.check());
  }

  /**
   * Watch `target` from now (null: stop): `url` to POST to, extra request `headers`, the
   * `body` sent with the page's id, and `seconds` between heartbeats. Nothing is sent at
   * once: call `check()` for that.
   */
  watch(target) {
    clearInterval(this.interval);
    clearTimeout(this.retry);
    this.interval = 0;
    this.retry = 0;
    this.target = target || null;
    if (!this.target) {
      if (!this.reached) this.contact({ reached: true, sentAt: 0 }); // nothing watched: no alarm
      return;
    }
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
    clearTimeout(this.retry);
    this.retry = 0;
    const sentAt = performance.now();
    let response;
    try {
      response = await fetch(target.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", ...(target.headers || {}) },
        body: JSON.stringify({ page: PAGE_ID, ...(target.body || {}) }),
      });
    } catch (err) {
      // the server is unreachable: the clock box says so, and the check is tried again soon
      this.checking = false;
      if (this.target !== target) return;
      this.contact({ reached: false });
      this.retry = setTimeout(() => this.check(), RETRY_MS);
      return;
    }
    try {
      if (this.target === target) this.contact({ reached: true, sentAt: response.ok ? sentAt : 0 });
      if (!response.ok) return;
      const answer = await response.json();
      if (this.target !== target) return; // a newer state was drawn meanwhile
      this.onAnswer(answer);
    } catch (err) {
      // an answer that is not JSON: the next check asks again
    } finally {
      this.checking = false;
    }
  }

  contact(contact) {
    this.reached = contact.reached;
    this.onContact(contact);
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
