// Tutor mode (a setting, off by default): before a play or a cube action is final in a local
// game, the server judges it by the hint's own evaluation (POST /api/games/{id}/tutor:
// services/tutor.py); when it loses more than the person's threshold (GNU Backgammon's marks:
// doubtful 0.04, bad 0.08, very bad 0.16 in equity) the page says so ("This play is a bad
// error: it loses 0.094 equity") and offers Play anyway, Rethink (nothing is sent: the checkers
// stay where they are, Undo takes them back) or Hint (the hints open on the decision). Online
// games never ask: main.js sends an online game's actions to the room without the tutor.

import { request } from "./api.js";

const $ = (id) => document.getElementById(id);

/** GNU Backgammon's thresholds, in equity (EMG): the choices of the setting. */
export const THRESHOLDS = Object.freeze({ doubtful: 0.04, bad: 0.08, "very bad": 0.16 });

/** The warning's "go on" button, named for the action it lets go on. */
const ANYWAY = {
  done: "Play anyway", roll: "Roll anyway", double: "Double anyway", take: "Take anyway",
  drop: "Pass anyway", beaver: "Beaver anyway",
};

/** The tutor's verdict on `action` in game `id` (done, roll, double, take, drop, beaver). */
export function tutorCheck(id, action) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/tutor`, { action });
}

/**
 * The action the tutor judges when the person sends `action` in the local state `game`, or
 * null: Done ends a checker play; Roll is a cube decision only where a double was possible;
 * the cube's own actions.
 */
export function judged(game, action) {
  if (!game || game.computer_to_act) return null;
  const can = game.can || {};
  if (action === "done") return game.phase === "move" ? "done" : null;
  if (action === "roll") return can.double ? "roll" : null;
  if (["double", "take", "drop", "beaver"].includes(action)) return action;
  return null;
}

export class Tutor {
  /**
   * @param {object} hooks
   * @param {() => {tutor: boolean, tutor_threshold: number}} hooks.settings the settings now
   * @param {() => void} hooks.hint open the hints on the decision
   * @param {(text: string) => void} [hooks.note] a line under the board while it checks
   */
  constructor(hooks) {
    this.hooks = hooks;
  }

  /**
   * Whether `action` may go on in the local state `game`: at once with the tutor off or
   * nothing to judge (or when the check itself fails: the tutor never stops a game); else
   * after the person's answer to the warning when it loses more than the threshold.
   * @returns {Promise<boolean>}
   */
  async allows(game, action) {
    const settings = this.hooks.settings();
    const which = settings.tutor ? judged(game, action) : null;
    if (!which) return true;
    let verdict;
    if (this.hooks.note) this.hooks.note("Tutor: checking…");
    try {
      verdict = await tutorCheck(game.id, which);
    } catch (err) {
      return true;
    } finally {
      if (this.hooks.note) this.hooks.note("");
    }
    if (!(verdict.loss > settings.tutor_threshold)) return true;
    const choice = await this.ask(verdict);
    if (choice === "hint") this.hooks.hint();
    return choice === "anyway";
  }

  /** Show the warning; resolves to "anyway", "rethink" or "hint" (Escape: rethink). */
  ask(verdict) {
    const dialog = $("tutor-dialog");
    dialog.dataset.mark = verdict.mark || "";
    dialog.dataset.action = verdict.action;
    $("tutor-text").textContent = verdict.text;
    $("tutor-anyway").textContent = ANYWAY[verdict.action] || "Play anyway";
    dialog.returnValue = "";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => {
        resolve(["anyway", "hint"].includes(dialog.returnValue) ? dialog.returnValue : "rethink");
      }, { once: true });
      dialog.showModal();
      $("tutor-rethink").focus();
    });
  }
}
