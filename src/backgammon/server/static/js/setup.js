// "Set up a position": an editor on the board, or a Position ID, a Position ID with its Match
// ID, or an XGID read by the server.
//
// The editor holds a setup as the server names it ({board: {points, off}, turn, dice, cube,
// doubled, match_length, score, crawford, jacoby, beavers}). A click on the board adds a
// checker of the colour chosen (taken from that side's tray when it has one there), or takes
// one of the other side's away; with "Remove" chosen a click takes a checker off the board for
// good. Every change is sent to the server, which checks it (15 checkers a side, ...) and
// answers the IDs, or the reason in words. The page decides no rule.

import { ApiError, checkPosition, errorWords, positionHint, readPosition } from "./api.js";
import { evaluatePosition } from "./assist_api.js";
import { evaluationNodes } from "./hints.js";
import { IdsView } from "./ids.js";
import { showText } from "./notes.js";

const $ = (id) => document.getElementById(id);

const START = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];

/** The starting position, White to roll, money play. */
export function startSetup() {
  return {
    board: { points: [...START], off: { white: 0, black: 0 } },
    turn: "white",
    dice: null,
    cube: { value: 1, owner: null },
    doubled: false,
    match_length: 0,
    score: { white: 0, black: 0 },
    crawford: false,
    jacoby: false,
    beavers: false,
  };
}

function copy(setup) {
  return JSON.parse(JSON.stringify(setup));
}

const SIGN = { white: 1, black: -1 };
const BAR = { white: 25, black: 0 };

/** The evaluation of `xgid`, asked again while the server's evaluation slots are taken (503
 * busy: each wait a little longer, for up to about `patience` milliseconds in all). Resolves to
 * `{ evaluation }`, or to `{ problem }`, the words saying why it could not be had. */
async function evaluateWhenFree(xgid, gammons, patience = 30_000) {
  const start = Date.now();
  let pause = 500;
  for (;;) {
    try {
      return { evaluation: await evaluatePosition(xgid, gammons) };
    } catch (err) {
      const busy = err instanceof ApiError && err.code === "busy";
      if (!busy || Date.now() - start + pause > patience) return { problem: errorWords(err) };
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(2 * pause, 4000);
    }
  }
}

export class SetupEditor {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board
   * @param {(setup: object, mode: string, side: string, cube: boolean, gammons: boolean) => void} hooks.play
   *   start a game from the checked setup
   * @param {() => boolean} [hooks.gammons] whether gammons count by default (the settings')
   * @param {() => void} hooks.close back to the game
   * @param {(setup: object) => void} hooks.save keep the setup among the saved positions
   * @param {(text: string) => void} hooks.say announce a line
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.setup = startSetup();
    this.active = false;
    this.valid = false;
    this.checked = null; // the server's last answer for a valid setup
    this.sequence = 0;
    this.ids = new IdsView($("setup-ids"), $("setup-copy-status"));
    const board = hooks.board.root;
    // Capture: in the editor a click edits; the board's own handlers are switched off.
    board.addEventListener("click", (event) => this.onBoardClick(event), true);
    $("setup-read").addEventListener("click", () => this.readId());
    $("setup-id-input").addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.readId();
      }
    });
    $("setup-start").addEventListener("click", () => this.replace(startSetup()));
    $("setup-empty").addEventListener("click", () => {
      const empty = startSetup();
      empty.board.points = new Array(26).fill(0);
      empty.board.off = { white: 15, black: 15 };
      this.replace(empty);
    });
    for (const id of ["setup-turn", "setup-die1", "setup-die2", "setup-cube-value", "setup-cube-owner",
      "setup-length", "setup-score-white", "setup-score-black", "setup-crawford"]) {
      $(id).addEventListener("change", () => this.readForm());
    }
    $("setup-play-computer").addEventListener("click", () => this.play("computer"));
    $("setup-play-pass").addEventListener("click", () => this.play("pass_and_play"));
    $("setup-hint").addEventListener("click", () => this.hint());
    $("setup-save").addEventListener("click", () => this.valid && this.hooks.save(copy(this.setup)));
    $("setup-cancel").addEventListener("click", () => this.close());
  }

  /** Open the editor on `setup` (default: the position on the board, or the start). */
  open(setup) {
    this.active = true;
    document.body.classList.add("setting-up");
    $("setup-panel").hidden = false;
    $("setup-hint-box").hidden = true;
    if (this.hooks.gammons) $("setup-gammons-on").checked = this.hooks.gammons();
    this.replace(setup ? copy(setup) : startSetup());
    $("setup-id-input").focus();
  }

  close() {
    this.active = false;
    document.body.classList.remove("setting-up");
    delete document.body.dataset.setupValid;
    $("setup-panel").hidden = true;
    this.hooks.close();
  }

  replace(setup) {
    this.setup = setup;
    this.writeForm();
    this.changed();
  }

  // ------------------------------------------------------------------------------------------
  // The form beside the board

  writeForm() {
    const s = this.setup;
    $("setup-turn").value = s.turn;
    $("setup-die1").value = s.dice ? String(s.dice[0]) : "";
    $("setup-die2").value = s.dice ? String(s.dice[1]) : "";
    $("setup-cube-value").value = String(s.cube.value);
    $("setup-cube-owner").value = s.cube.owner || "";
    $("setup-length").value = String(s.match_length);
    $("setup-score-white").value = String(s.score.white);
    $("setup-score-black").value = String(s.score.black);
    for (const id of ["setup-score-white", "setup-score-black"]) $(id).disabled = !s.match_length;
    $("setup-crawford").checked = s.crawford;
    $("setup-side").value = s.turn;
  }

  readForm() {
    const s = this.setup;
    s.turn = $("setup-turn").value;
    const d1 = Number($("setup-die1").value);
    const d2 = Number($("setup-die2").value);
    s.dice = d1 && d2 ? [d1, d2] : null;
    if (s.dice) s.doubled = false;
    s.cube = { value: Number($("setup-cube-value").value) || 1, owner: $("setup-cube-owner").value || null };
    s.match_length = Math.max(0, Math.floor(Number($("setup-length").value) || 0));
    s.score = {
      white: Math.max(0, Math.floor(Number($("setup-score-white").value) || 0)),
      black: Math.max(0, Math.floor(Number($("setup-score-black").value) || 0)),
    };
    s.crawford = $("setup-crawford").checked;
    if (s.match_length) {
      s.jacoby = false;
      s.beavers = false;
    } else {
      s.score = { white: 0, black: 0 }; // money play has no match score
    }
    // the form shows what is played: a length of -1 reads 0, a money game's score 0 and
    // disabled, rather than a value silently left out
    const shown = { "setup-length": s.match_length, "setup-score-white": s.score.white,
      "setup-score-black": s.score.black };
    for (const [id, value] of Object.entries(shown)) {
      if ($(id).value !== String(value)) $(id).value = String(value);
    }
    for (const id of ["setup-score-white", "setup-score-black"]) $(id).disabled = !s.match_length;
    this.changed();
  }

  tool() {
    const chosen = document.querySelector('input[name="setup-tool"]:checked');
    return chosen ? chosen.value : "white";
  }

  // ------------------------------------------------------------------------------------------
  // Clicks on the board

  onBoardClick(event) {
    if (!this.active) return;
    const node = event.target.closest("[data-point]");
    if (!node || !this.hooks.board.root.contains(node)) return;
    event.preventDefault();
    event.stopPropagation();
    const where = node.dataset.point;
    const tool = this.tool();
    const clicked = node.classList.contains("checker") ? node.dataset.color : null;
    if (where === "off") {
      const color = node.dataset.color;
      this.edit(color, "off", tool === "remove" ? -1 : 1);
    } else if (tool === "remove") {
      this.removeFrom(where, clicked);
    } else {
      this.addTo(where, tool);
    }
  }

  /** Change `color`'s count on `where` by `delta`; an added checker comes from the tray. */
  edit(color, where, delta) {
    const board = this.setup.board;
    if (where === "off") {
      board.off[color] = Math.max(0, board.off[color] + delta);
    } else {
      const slot = where === "bar" ? BAR[color] : Number(where);
      board.points[slot] += SIGN[color] * delta;
      if (delta > 0 && board.off[color] > 0) board.off[color] -= 1;
    }
    this.changed();
  }

  addTo(where, color) {
    if (where === "bar") {
      this.edit(color, "bar", 1);
      return;
    }
    const count = this.setup.board.points[Number(where)];
    const other = color === "white" ? "black" : "white";
    if (count * SIGN[other] > 0) {
      this.setup.board.points[Number(where)] -= SIGN[other]; // the other side's checker goes
      this.changed();
    } else {
      this.edit(color, where, 1);
    }
  }

  removeFrom(where, clicked) {
    const points = this.setup.board.points;
    if (where === "bar") {
      const color = clicked || (points[25] > 0 ? "white" : "black");
      if ((color === "white" ? points[25] : -points[0]) > 0) this.edit(color, "bar", -1);
      return;
    }
    const count = points[Number(where)];
    if (count) {
      points[Number(where)] -= Math.sign(count);
      this.changed();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Drawing and checking

  draw() {
    const s = this.setup;
    const board = this.hooks.board;
    board.setEnabled(false);
    board.setLegal(null, []);
    board.setLastTurn(null);
    board.drawPosition(s.board);
    board.drawDice(s.dice, s.dice || [], s.turn, null);
    board.drawCube({ enabled: true, value: s.cube.value, owner: s.cube.owner, offered_by: s.doubled ? s.turn : null });
    const counts = ["white", "black"].map((color) => {
      const sign = SIGN[color];
      let onPoints = 0;
      for (let p = 1; p <= 24; p++) onPoints += Math.max(0, s.board.points[p] * sign);
      const bar = color === "white" ? s.board.points[25] : -s.board.points[0];
      const total = onPoints + bar + s.board.off[color];
      return `${color === "white" ? "White" : "Black"} ${total} (${onPoints} on the points, ${bar} on the bar, ${s.board.off[color]} off)`;
    });
    $("setup-counts").textContent = counts.join(" · ");
  }

  async changed() {
    this.draw();
    const sequence = ++this.sequence;
    this.valid = false;
    this.setButtons();
    let answer = null;
    let problem = null;
    try {
      answer = await checkPosition(this.setup);
    } catch (err) {
      problem = errorWords(err);
    }
    if (sequence !== this.sequence || !this.active) return; // a later change is being checked
    const status = $("setup-status");
    this.valid = Boolean(answer);
    this.checked = answer;
    // one die chosen is no roll: said, rather than left out in silence
    const oneDie = Boolean(Number($("setup-die1").value)) !== Boolean(Number($("setup-die2").value));
    const dice = oneDie ? " (one die chosen: choose both for a roll)" : "";
    status.textContent = answer ? `Ready: ${answer.summary}${dice}.` : problem;
    status.classList.toggle("error", !answer);
    this.ids.show(answer ? answer.ids : null);
    document.body.dataset.setupValid = String(this.valid);
    document.body.dataset.setupSequence = String(sequence);
    this.setButtons();
  }

  setButtons() {
    for (const id of ["setup-play-computer", "setup-play-pass", "setup-hint", "setup-save"]) {
      $(id).disabled = !this.valid;
    }
  }

  async readId() {
    const text = $("setup-id-input").value;
    const status = $("setup-status");
    try {
      const answer = await readPosition(text, $("setup-turn").value);
      $("setup-id-error").hidden = true;
      this.replace(answer.setup);
      this.hooks.say(`Position read: ${answer.summary}.`);
    } catch (err) {
      const box = $("setup-id-error");
      showText(box, errorWords(err));
      status.classList.toggle("error", true);
    }
  }

  play(mode) {
    if (!this.valid) return;
    const setup = copy(this.setup);
    const side = $("setup-side").value;
    const cube = $("setup-cube-on").checked;
    const gammons = $("setup-gammons-on").checked;
    this.active = false;
    document.body.classList.remove("setting-up");
    delete document.body.dataset.setupValid;
    $("setup-panel").hidden = true;
    this.hooks.play(setup, mode, side, cube, gammons);
  }

  /** The computer's advice for the position: its words (POST /api/positions/hint), and its
   * evaluation drawn as the game's hints draw theirs (the same table of ranked plays, or the
   * same cube line: hints.js evaluationNodes). */
  async hint() {
    if (!this.valid) return;
    const box = $("setup-hint-box");
    const shown = $("setup-hint-eval");
    box.hidden = false;
    delete box.dataset.ready;
    $("setup-hint-text").textContent = "Thinking…";
    shown.replaceChildren();
    const xgid = this.checked && this.checked.ids ? this.checked.ids.xgid : null;
    try {
      const answer = await positionHint(this.setup);
      $("setup-hint-text").textContent = answer.text;
      this.hooks.say(answer.text);
      // then its table (one evaluation at a time for a client: after the words, not beside)
      const found = xgid ? await evaluateWhenFree(xgid, $("setup-gammons-on").checked) : null;
      if (found && found.evaluation) {
        shown.replaceChildren(...evaluationNodes(found.evaluation, { ids: false }));
      } else if (found) {
        const line = document.createElement("p");
        line.className = "hints-text hints-problem";
        line.textContent = `No table of plays: ${found.problem}`;
        shown.replaceChildren(line);
      }
      box.dataset.ready = "true";
    } catch (err) {
      $("setup-hint-text").textContent = errorWords(err);
    }
  }
}
