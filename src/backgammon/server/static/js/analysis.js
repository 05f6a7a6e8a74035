// Analysis: the computer scores every decision of the game, the match or the opened .mat file
// (POST /api/analysis, then GET /api/analysis/{id} for its progress and result), in the
// background with a progress bar. Review then marks each line of the move list (?! doubtful,
// ? bad, ?? very bad), shows the best play and what was lost for the line under review, a
// summary per player (error rates in mEMG, PR, rating, marks, luck) and a graph of the winning
// chances over the game: an inline SVG; a click on a point jumps to that move.

import { cancelAnalysis, getAnalysis, startAnalysis } from "./assist_api.js";
import { el } from "./dom.js";
import { loadSettings } from "./settings.js";
import { pointsFor } from "./table.js";

const $ = (id) => document.getElementById(id);

/** The level Analyze runs at, from the settings: "expert" (2-ply) or "master" (3-ply). */
function analysisLevel() {
  const level = loadSettings().analysis_level;
  return level === "master" ? "master" : "expert";
}

const SYMBOL = { doubtful: "?!", bad: "?", "very bad": "??" };
const WORST = { "": 0, doubtful: 1, bad: 2, "very bad": 3 };
const POLL_MS = 250;

/** Why an online game in progress is not analysed. */
const NOT_YET = "An online game is analysed once it is over.";

/** Whether a player is this program's computer, graded by the same engine that played it
 * (its own errors read small: "PR 0.0, world class"). */
const selfGraded = (p) => /^Computer( \(|$)/.test(p.name);

/** "Your" for "You" (the person, against the computer), else "Ann's". */
const possessive = (name) => (name === "You" ? "Your" : `${name}'s`);
const signed = (x) => (x >= 0 ? `+${x.toFixed(3)}` : x.toFixed(3));
/** A player's rating word; null (no decision counted, no PR to rate): "no decisions". */
const ratingText = (p) => p.rating ?? "no decisions";

export class Analysis {
  /**
   * @param {object} hooks
   * @param {import("./review.js").Review} hooks.review
   * @param {() => object|null} hooks.getGame the live state
   * @param {() => object|null} [hooks.exportSource] the transcript of online play
   * @param {() => boolean} [hooks.allowed] false while an online game is played: the
   *   computer's view of it comes once the game is over, as its hints do
   * @param {(text: string) => void} hooks.say announce a line
   * @param {(text: string) => void} hooks.showError show an error in words
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.result = null;
    this.byLine = new Map(); // move-list line -> its decisions
    this.running = false;
    this.jobId = null; // the job running now, while it runs
    this.liveFor = null; // the live game analysed: {id, lines} (its move list's length then)
    this.shownFor = null; // what the analysis on screen is of (context()), while one is shown
    $("analyze-button").addEventListener("click", () => this.start().catch((err) => this.fail(err.message)));
    $("analysis-stop").addEventListener("click", () => this.stop());
    // a page closed or reloaded mid-analysis gives its worker back to the server
    window.addEventListener("pagehide", () => {
      if (this.jobId) cancelAnalysis(this.jobId, { keepalive: true });
    });
  }

  /** Stop the analysis running now (the Stop button). */
  stop() {
    if (!this.jobId) return;
    $("analysis-stop").disabled = true;
    cancelAnalysis(this.jobId).catch(() => {}); // the poll sees the job end either way
  }

  /** What to analyse now: {body, live} or null. */
  async source() {
    const review = this.hooks.review;
    if (review.active && review.source === "record" && review.recordText) {
      return { body: { mat: review.recordText, name: review.fileName || null }, live: false };
    }
    const online = this.hooks.exportSource && this.hooks.exportSource();
    if (online) {
      if (this.hooks.allowed && !this.hooks.allowed()) return { refused: NOT_YET };
      const answer = await online.load(null);
      return { body: { mat: answer.text, name: answer.filename || null }, live: true };
    }
    const game = this.hooks.getGame();
    if (!game) return null;
    return { body: { game_id: game.id }, live: true };
  }

  /** What the page shows now, to tie an analysis to it: the record under review (the how
   * manyth opened), or the live game (its id). */
  context() {
    const review = this.hooks.review;
    if (review.active && review.source === "record") return `record:${review.recordNumber}`;
    const game = this.hooks.getGame();
    return `live:${game ? game.id : ""}`;
  }

  /** Put the analysis on screen away (its panel, graph, detail and the move list's marks):
   * the page no longer shows what it analysed (another record, another game, a set-up
   * position, or back to the game from a record). */
  clear() {
    this.result = null;
    this.byLine = new Map();
    this.points = [];
    this.liveFor = null;
    this.shownFor = null;
    const panel = $("analysis-panel");
    panel.hidden = true;
    delete panel.dataset.state;
    $("analysis-status").textContent = "";
    $("analysis-progress").hidden = true;
    $("analysis-detail").replaceChildren();
    $("analysis-graph").replaceChildren();
    $("analysis-summary").replaceChildren();
    $("analysis-summary").hidden = true;
    for (const item of $("move-list").querySelectorAll("li[data-mark]")) {
      item.querySelector(".mark")?.remove();
      item.className = item.className.replace(/\bmark-\S+/g, "").trim();
      delete item.dataset.mark;
    }
  }

  /** The page shows something else than what the analysis on screen is of: put it away. */
  sync() {
    if (this.running || this.shownFor === null) return;
    if (this.context() !== this.shownFor) this.clear();
  }

  /** The page moved on (another record, or back to the game from a record) while the
   * analysis ran: it is stopped on the server and its result is not drawn over the wrong
   * moves. */
  abandon(jobId) {
    cancelAnalysis(jobId).catch(() => {});
    $("analysis-panel").hidden = true;
    delete $("analysis-panel").dataset.state;
    $("analysis-progress").hidden = true;
  }

  async start() {
    if (this.running) return;
    const started = this.context();
    const source = await this.source();
    if (!source) return;
    if (source.refused) {
      $("analysis-panel").hidden = false;
      $("analysis-panel").dataset.state = "refused";
      $("analysis-progress").hidden = true;
      $("analysis-status").textContent = source.refused;
      this.hooks.say(source.refused);
      return;
    }
    this.running = true;
    $("analysis-panel").hidden = false;
    $("analysis-panel").dataset.state = "running";
    const bar = $("analysis-progress");
    bar.hidden = false;
    bar.value = 0;
    $("analysis-status").textContent = "Analysing…";
    this.hooks.say("Analysing the game.");
    const stopButton = $("analysis-stop");
    try {
      let job = await startAnalysis({ ...source.body, level: analysisLevel() });
      this.jobId = job.id;
      stopButton.disabled = false;
      stopButton.hidden = false;
      let last = 0;
      while (job.status === "queued" || job.status === "running") {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        job = await getAnalysis(job.id);
        if (this.context() !== started) {
          this.abandon(job.id);
          return;
        }
        last = Math.max(last, job.progress);
        bar.value = last;
        $("analysis-status").textContent = job.total ? `Analysing… ${job.done} of ${job.total} turns` : "Waiting for a free analyser…";
      }
      if (job.status === "cancelled") {
        bar.hidden = true;
        $("analysis-panel").dataset.state = "cancelled";
        $("analysis-status").textContent = "Analysis stopped.";
        this.hooks.say("Analysis stopped.");
        return;
      }
      if (job.status !== "done") throw new Error(job.error || "the analysis failed");
      if (this.context() !== started) {
        this.abandon(job.id);
        return;
      }
      bar.value = 1;
      bar.hidden = true;
      if (source.live && !this.hooks.review.active) await this.hooks.review.enterLive(0);
      const game = this.hooks.getGame();
      this.liveFor = source.live && game ? { id: game.id, lines: game.history.length } : null;
      this.shownFor = this.context();
      this.show(job.result);
    } finally {
      this.running = false;
      this.jobId = null;
      stopButton.hidden = true;
    }
  }

  fail(message) {
    $("analysis-panel").hidden = false;
    $("analysis-panel").dataset.state = "failed";
    $("analysis-progress").hidden = true;
    $("analysis-status").textContent = `Analysis failed: ${message}`;
    this.hooks.showError(message);
    this.hooks.say(`Analysis failed: ${message}`);
  }

  /** The move-list line of each (game, turn) of the review on screen. */
  lines() {
    const frames = this.hooks.review.data ? this.hooks.review.data.frames : [];
    const map = new Map();
    const counts = new Map();
    for (const frame of frames) {
      if (frame.kind === "start" || frame.kind === "result") continue;
      const k = counts.get(frame.game) || 0;
      counts.set(frame.game, k + 1);
      map.set(`${frame.game - 1}:${k}`, frame.history_index);
    }
    return map;
  }

  show(result) {
    this.result = result;
    const lines = this.lines();
    this.byLine = new Map();
    this.points = [];
    for (const game of result.games) {
      for (const d of game.decisions) {
        const line = lines.get(`${d.game}:${d.turn}`);
        if (line === undefined || line === null) continue;
        if (!this.byLine.has(line)) {
          this.byLine.set(line, []);
          this.points.push({ line, win: d.win, game: d.game });
        }
        this.byLine.get(line).push(d);
      }
    }
    this.markList();
    this.drawSummary(result);
    this.drawGraph();
    $("analysis-panel").dataset.state = "done";
    const said = (p) => `${p.name} PR ${p.pr.toFixed(1)} (${ratingText(p)}${selfGraded(p) ? "; self-graded" : ""})`;
    const level = result.level.charAt(0).toUpperCase() + result.level.slice(1);
    $("analysis-status").textContent = `Analysed at ${level} (${result.plies}-ply): ${result.players.map(said).join(", ")}.`;
    this.hooks.say($("analysis-status").textContent);
    const review = this.hooks.review;
    if (review.active && review.data) this.onFrame(review.data.frames[review.index]);
  }

  markList() {
    const list = $("move-list");
    for (const [line, decisions] of this.byLine) {
      const item = list.children[line];
      if (!item) continue;
      const worst = decisions.reduce((w, d) => (WORST[d.mark] > WORST[w] ? d.mark : w), "");
      item.querySelector(".mark")?.remove();
      if (!worst) continue;
      item.dataset.mark = worst;
      item.classList.add(`mark-${worst.replace(" ", "-")}`);
      const mark = el("span", ` ${SYMBOL[worst]}`, "mark");
      mark.title = worst;
      item.appendChild(mark);
    }
  }

  /** The summary per player: a row per figure, a column per player (it fits the panel). */
  drawSummary(result) {
    const table = $("analysis-summary");
    table.replaceChildren();
    const head = el("tr");
    head.appendChild(el("th", ""));
    for (const p of result.players) {
      const th = el("th", p.name);
      th.dataset.player = p.name;
      th.scope = "col";
      head.appendChild(th);
    }
    table.appendChild(head);
    // each figure's unit beside its name (error rates and PR are not the same unit)
    const figures = [
      ["checker", "Checker play", "mEMG", (p) => p.chequer_error_rate_memg.toFixed(1)],
      ["cube", "Cube", "mEMG", (p) => p.cube_error_rate_memg.toFixed(1)],
      ["overall", "Overall", "mEMG", (p) => p.error_rate_memg.toFixed(1)],
      ["pr", "PR", "", (p) => p.pr.toFixed(1)],
      ["rating", "Rating", "", ratingText],
      ["doubtful", "Doubtful ?!", "", (p) => String(p.doubtful)],
      ["bad", "Bad ?", "", (p) => String(p.bad)],
      ["very-bad", "Very bad ??", "", (p) => String(p.very_bad)],
      ["luck", "Luck", "EMG", (p) => signed(p.luck_emg)],
    ];
    for (const [key, label, unit, value] of figures) {
      const row = el("tr");
      row.dataset.figure = key;
      const th = el("th", unit ? `${label} ` : label);
      if (unit) th.appendChild(el("span", `(${unit})`, "unit"));
      th.scope = "row";
      row.appendChild(th);
      for (const p of result.players) {
        const cell = el("td", value(p));
        cell.dataset.player = p.name;
        if (key === "pr" && selfGraded(p)) {
          // the engine that played grades itself: its own choices are its best ones
          const note = el("span", " self-graded", "self-graded");
          note.title = "Graded by the engine that played it: its own choices look best to it";
          cell.appendChild(note);
        }
        row.appendChild(cell);
      }
      table.appendChild(row);
    }
    let words = "Error rates in mEMG (thousandths of a game) per decision; PR, eXtreme "
      + "Gammon's Performance Rating: 500 times the equity lost per decision; luck in EMG.";
    if (result.players.some(selfGraded)) {
      words += " Self-graded: the computer is graded by the engine that played, so its own "
        + "errors read small.";
    }
    table.prepend(el("caption", words));
    table.hidden = false;
  }

  drawGraph() {
    const box = $("analysis-graph");
    box.replaceChildren();
    const points = this.points;
    if (!points.length) return;
    const NS = "http://www.w3.org/2000/svg";
    const width = 320;
    const height = 100;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("class", "win-graph");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `${possessive(this.result.names[0])} chances of winning the game, move by move`);
    const x = (i) => (points.length === 1 ? width / 2 : 4 + (i * (width - 8)) / (points.length - 1));
    const y = (win) => height - 4 - win * (height - 8);
    const mid = document.createElementNS(NS, "line");
    for (const [k, v] of Object.entries({ x1: 0, x2: width, y1: y(0.5), y2: y(0.5), class: "win-mid" })) mid.setAttribute(k, String(v));
    svg.appendChild(mid);
    // one line per game, a dashed rule where the next begins: a match's games are not one
    // game's chances (the last game ends near 0 or 1, the next starts near a half)
    let first = 0;
    points.forEach((p, i) => {
      if (i + 1 < points.length && points[i + 1].game === p.game) return;
      const line = document.createElementNS(NS, "polyline");
      line.setAttribute("points", points.slice(first, i + 1)
        .map((q, k) => `${x(first + k).toFixed(1)},${y(q.win).toFixed(1)}`).join(" "));
      line.setAttribute("class", "win-line");
      line.dataset.game = String(p.game);
      svg.appendChild(line);
      if (i + 1 < points.length) {
        const rule = document.createElementNS(NS, "line");
        const at = ((x(i) + x(i + 1)) / 2).toFixed(1);
        for (const [k, v] of Object.entries({ x1: at, x2: at, y1: 0, y2: height, class: "win-game-rule" })) rule.setAttribute(k, String(v));
        svg.appendChild(rule);
      }
      first = i + 1;
    });
    points.forEach((p, i) => {
      const dot = document.createElementNS(NS, "circle");
      dot.setAttribute("cx", x(i).toFixed(1));
      dot.setAttribute("cy", y(p.win).toFixed(1));
      dot.setAttribute("r", "3");
      const marks = this.byLine.get(p.line).map((d) => d.mark).filter(Boolean);
      dot.setAttribute("class", `win-point${marks.length ? ` mark-${marks[0].replace(" ", "-")}` : ""}`);
      dot.dataset.line = String(p.line);
      const title = document.createElementNS(NS, "title");
      title.textContent = `${(100 * p.win).toFixed(1)}%`;
      dot.appendChild(title);
      svg.appendChild(dot);
    });
    // a click anywhere on the graph goes to the turn nearest it across (the dots of a long
    // game are a few pixels apart: a finger seldom lands on one)
    svg.addEventListener("click", (event) => {
      const box = svg.getBoundingClientRect();
      if (!box.width) return;
      const at = ((event.clientX - box.left) * width) / box.width;
      let nearest = 0;
      points.forEach((_, i) => { if (Math.abs(x(i) - at) < Math.abs(x(nearest) - at)) nearest = i; });
      this.hooks.review.jumpToLine(points[nearest].line);
    });
    box.appendChild(svg);
    box.appendChild(el("p", `${possessive(this.result.names[0])} chances of winning the game, turn by `
      + "turn (the dashed line: 50 %); a point shows its move.", "graph-caption"));
  }

  /** The page shows the live state `game`: an analysis of an earlier state of it says how far
   * it goes once more moves are played; one of another game is put away. */
  onLive(game) {
    this.sync();
    const done = this.liveFor;
    if (!done || !this.result || this.running) return;
    if (!game || game.id !== done.id) {
      this.clear();
      return;
    }
    if (game.history.length > done.lines) {
      $("analysis-panel").dataset.state = "stale";
      $("analysis-status").textContent = `This analysis covers the first ${done.lines} lines `
        + "of the move list: Analyze again for the moves played since.";
    }
  }

  /** The review shows `frame`: what the analysis says of its line. */
  onFrame(frame) {
    this.sync();
    const box = $("analysis-detail");
    if (!box) return;
    box.replaceChildren();
    if (!this.result || !frame) return;
    const decisions = this.byLine.get(frame.history_index) || [];
    box.dataset.line = frame.history_index === null ? "" : String(frame.history_index);
    for (const d of decisions) {
      const name = this.result.names[d.player];
      // the plays in the mover's numbering (player 0 is White), or as the move list's setting
      const points = (play) => pointsFor(play, d.player === 0 ? "white" : "black");
      if (d.kind === "move") {
        const said = d.loss > 0.0005
          ? `${name} played ${points(d.played)}: best ${points(d.best)}, lost ${d.loss.toFixed(3)}${d.mark ? ` (${d.mark})` : ""}.`
          : `${name} played ${points(d.played)}: the best play.`;
        box.appendChild(el("p", said, "analysis-said"));
        const list = el("ol", undefined, "analysis-alternatives");
        for (const a of d.alternatives) {
          const depth = a.ply === undefined || a.ply === null ? "" : `${a.ply}-ply, `;
          const item = el("li", `${points(a.play)}  ${signed(a.equity)}  (${depth}win ${(100 * a.probs[0]).toFixed(1)}%)`);
          if (a.play === d.played) item.className = "played";
          list.appendChild(item);
        }
        box.appendChild(list);
        if (d.luck !== null && d.luck_mark) box.appendChild(el("p", `Roll: ${d.luck_mark} (${signed(d.luck)})`, "analysis-luck"));
      } else if (d.unforced || d.played === "double") {
        const best = d.kind === "double" && d.best === "double" ? `double, ${d.response}` : d.best;
        const said = d.loss > 0.0005 ? `${name}: ${d.played}; best ${best}, lost ${d.loss.toFixed(3)}${d.mark ? ` (${d.mark})` : ""}.` : `${name}: ${d.played}, right.`;
        box.appendChild(el("p", said, "analysis-said"));
      }
    }
  }
}
