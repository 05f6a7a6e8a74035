// Rollouts in the page: "Roll out" beside a hint or a reviewed decision (hints.js draws the
// button) opens the rollout panel under the hints: a few settings (trials, truncation, the
// players' level, the plays to compare, cubeful), Start, then a table that fills in as the
// trials come in (POST /api/rollouts, then GET /api/rollouts/{id} every half second), with a
// Stop button (DELETE: the trials done are kept). Each row: the candidate, its equity (EMG,
// the side to decide's view) with its standard error, its difference to the best, and its
// win / gammon / backgammon chances; under the table whether the best is ahead of the next at
// 95 %. One rollout at a time per page (the server takes one per client).

import { deleteJob, request } from "./api.js";
import { el } from "./dom.js";

const $ = (id) => document.getElementById(id);
/** How often a running rollout is read (ms). */
const POLL_MS = 500;

/** Start a rollout: {position, dice?, trials, truncate, level, cubeful, seed, plays, gammons}. */
export function startRollout(body) {
  return request("POST", "/api/rollouts", body);
}

/** A rollout job: {id, status, done, total, progress, stopped_by, error, request, result}. */
export function getRollout(id) {
  return request("GET", `/api/rollouts/${encodeURIComponent(id)}`);
}

/** Stop a rollout this page started (`keepalive`: sent even as the page goes away). */
export function stopRollout(id, options = {}) {
  return deleteJob(`/api/rollouts/${encodeURIComponent(id)}`, options);
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const signed = (x) => (x >= 0 ? `+${x.toFixed(3)}` : x.toFixed(3));

/** What a decision is, for the panel's caption: "White's 3-1", "White's cube decision". */
function describe(what) {
  return what || "this decision";
}

/**
 * The table of a rollout's figures (the job's `result`), best first as the server ranks
 * them (a cube decision: no double, double/take, double/pass).
 * @param {object} result
 * @returns {HTMLTableElement}
 */
export function rolloutTable(result) {
  const table = el("table", undefined, "hints-ranked rollout-table");
  table.id = "rollout-table";
  const head = el("tr");
  for (const label of ["#", result.kind === "plays" ? "Play" : "Choice", "± SE", "Equity", "Diff", "Win", "W g", "W bg", "L g", "L bg"]) head.appendChild(el("th", label));
  head.children[2].title = "The standard error of the equity: the true value lies within about two of them, 19 times in 20";
  table.appendChild(head);
  const rows = result.candidates;
  const best = result.kind === "cube"
    ? rows.find((row) => result.decision && result.decision.startsWith(row.name)) || rows[0]
    : rows[0];
  rows.forEach((row, i) => {
    const tr = el("tr");
    tr.dataset.candidate = row.name;
    tr.dataset.equity = String(row.equity);
    const diff = row === best ? "" : signed(row.equity - best.equity);
    const se = row.trials ? row.se.toFixed(3) : "exact";
    for (const text of [String(i + 1), row.name, se, signed(row.equity), diff, pct(row.win), pct(row.win_gammon), pct(row.win_backgammon), pct(row.lose_gammon), pct(row.lose_backgammon)]) tr.appendChild(el("td", text));
    if (row === best) tr.classList.add("played"); // the best, marked as the hint marks a play
    tr.title = `${row.trials} trials`;
    table.appendChild(tr);
  });
  return table;
}

/**
 * The plays to roll out: the hint's first `count`, the play made in their last place when it
 * is not among them (the server's players' ranking adds more when the hint has fewer).
 * @param {{candidates: string[], played?: string|null}} target
 * @param {number} count
 */
export function candidatesOf(target, count) {
  const named = target.candidates.slice(0, count);
  const played = target.played;
  if (played && !named.includes(played)) {
    if (named.length >= count) named[count - 1] = played;
    else named.push(played);
  }
  return named;
}

/** The words under the table: the trials, and whether the best is ahead at 95 %. */
export function verdict(job) {
  const result = job.result;
  if (!result || !result.trials || !result.candidates.length) return "";
  if (result.kind === "cube") {
    const clear = result.separated ? "clear at 95%" : "not yet clear at 95%: more trials would tell";
    return `Proper cube action: ${result.decision} (${clear}).`;
  }
  if (result.candidates.length < 2) return `${result.candidates[0].name} is the only play.`;
  const [first, second] = result.candidates;
  const lead = `${first.name} leads ${second.name} by ${result.lead.toFixed(3)} ± ${result.lead_se.toFixed(3)}`;
  return result.separated ? `${lead}: ahead at 95%.` : `${lead}: not separated at 95% yet.`;
}

export class RolloutView {
  /**
   * @param {object} hooks
   * @param {(text: string) => void} [hooks.say] announce a line
   */
  constructor(hooks = {}) {
    this.hooks = hooks;
    this.jobId = null;
    this.target = null; // {position, gammons, kind, what}
    this.timer = null;
    $("rollout-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.start();
    });
    $("rollout-stop").addEventListener("click", () => this.stop());
    $("rollout-close").addEventListener("click", () => this.close());
    window.addEventListener("pagehide", () => {
      if (this.jobId) stopRollout(this.jobId, { keepalive: true });
    });
  }

  /** Whether a rollout runs (or waits) for this page. */
  running() {
    return Boolean(this.jobId);
  }

  /**
   * Open the panel for a decision: its settings, Start. A rollout still running for another
   * decision is stopped first.
   * @param {{position: string, gammons?: boolean, kind: string, what?: string,
   *   candidates?: string[]|null, played?: string|null}} target
   *   `position` its XGID; `kind` "plays" or "cube" (a cube decision or a double's answer);
   *   `candidates` the plays of the hint beside it, best first, and `played` the play made
   *   (a review): the rollout compares those, not the players' own choice of plays
   */
  open(target) {
    if (this.jobId) this.stop();
    this.target = target;
    const panel = $("rollout-panel");
    panel.hidden = false;
    panel.dataset.kind = target.kind;
    delete panel.dataset.status;
    $("rollout-what").textContent = `Roll out ${describe(target.what)}: the computer plays it out many times at the level chosen.`;
    $("rollout-plays-row").hidden = target.kind !== "plays";
    $("rollout-cubeful-row").hidden = target.kind !== "plays"; // a cube decision is cubeful
    $("rollout-form").hidden = false;
    $("rollout-status").textContent = "";
    $("rollout-progress").hidden = true;
    $("rollout-table-box").replaceChildren();
    $("rollout-verdict").textContent = "";
    $("rollout-stop").hidden = true;
    panel.scrollIntoView({ block: "nearest" });
    $("rollout-start").focus();
  }

  /** Start the rollout the form describes. */
  async start() {
    const target = this.target;
    if (!target) return;
    const form = $("rollout-form");
    const number = (name) => Number(form.elements[name].value);
    const body = {
      position: target.position,
      trials: number("trials"),
      truncate: number("truncate"),
      level: number("level"),
      cubeful: target.kind !== "plays" || form.elements.cubeful.checked,
      seed: Math.floor(Math.random() * 1000000),
      gammons: target.gammons !== false,
    };
    if (target.kind === "plays") {
      body.plays = number("plays");
      if (target.candidates && target.candidates.length) body.candidates = candidatesOf(target, body.plays);
    }
    $("rollout-status").textContent = "Starting the rollout…";
    let job;
    try {
      job = await startRollout(body);
    } catch (err) {
      $("rollout-status").textContent = `No rollout: ${err.message}`;
      return;
    }
    if (this.target !== target) { // closed or moved on meanwhile
      stopRollout(job.id).catch(() => {});
      return;
    }
    this.jobId = job.id;
    form.hidden = true;
    $("rollout-stop").hidden = false;
    $("rollout-stop").focus();
    this.draw(job);
    this.poll(job.id);
  }

  poll(id) {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (this.jobId !== id) return;
      let job;
      try {
        job = await getRollout(id);
      } catch (err) {
        if (this.jobId !== id) return;
        this.jobId = null;
        $("rollout-status").textContent = `The rollout is lost: ${err.message}`;
        $("rollout-stop").hidden = true;
        $("rollout-form").hidden = false;
        return;
      }
      if (this.jobId !== id) return;
      this.draw(job);
      if (["done", "stopped", "failed"].includes(job.status)) this.finished(job);
      else this.poll(id);
    }, POLL_MS);
  }

  draw(job) {
    const panel = $("rollout-panel");
    panel.dataset.status = job.status;
    panel.dataset.done = String(job.done);
    const progress = $("rollout-progress");
    progress.hidden = job.status !== "running" && job.status !== "queued";
    progress.value = job.progress;
    const what = job.status === "queued" ? "Waiting for the server (it runs one rollout at a time)…"
      : job.status === "running" ? `Rolling out: ${job.done} of ${job.total} trials…`
      : job.status === "done" ? `Done: ${job.done} trials${job.result ? ` in ${Math.round(job.result.seconds)} s` : ""}.`
      : job.status === "stopped" ? `Stopped${job.stopped_by === "time limit" ? " at the time limit" : ""} after ${job.done} of ${job.total} trials.`
      : `The rollout failed: ${job.error}`;
    $("rollout-status").textContent = what;
    if (job.result && job.result.trials > 0 && job.result.candidates.length) { // (none done: no figures)
      $("rollout-table-box").replaceChildren(rolloutTable(job.result));
      $("rollout-verdict").textContent = verdict(job);
    }
  }

  finished(job) {
    this.jobId = null;
    $("rollout-stop").hidden = true;
    $("rollout-form").hidden = false;
    $("rollout-start").textContent = "Roll out again";
    if (this.hooks.say) this.hooks.say(`${$("rollout-status").textContent} ${verdict(job)}`);
  }

  /** Stop the rollout running (the figures of its trials stay). */
  stop() {
    const id = this.jobId;
    if (!id) return;
    stopRollout(id).catch(() => {}); // the poll sees the job end either way
    $("rollout-status").textContent = "Stopping…";
  }

  /**
   * Close the panel unless its decision is one of `positions` (the XGIDs of the decisions the
   * hints panel shows now): a rollout of an earlier turn, or of another reviewed turn, is not
   * left beside the position on the board.
   * @param {(string|null)[]} positions
   */
  keepOnly(positions) {
    if (this.target && !positions.includes(this.target.position)) this.close();
  }

  /** Close the panel (a running rollout is stopped). */
  close() {
    if (this.jobId) {
      stopRollout(this.jobId).catch(() => {});
      this.jobId = null;
    }
    clearTimeout(this.timer);
    this.target = null;
    $("rollout-panel").hidden = true;
    $("rollout-start").textContent = "Start";
  }
}
