// Words for what happens, for people who cannot see the board: a live region (role="log",
// aria-live="polite") that announces the dice, each move in notation, the cube actions and the
// result. The words come from the server's state (its messages and move texts); this module
// only decides which changes are news.

const KEEP = 8; // lines kept in the region (the newest last)

export class Announcer {
  /** @param {HTMLElement} region the #announcer element */
  constructor(region) {
    this.region = region;
  }

  /** Announce one line (empty lines are ignored). */
  say(text) {
    if (!text) return;
    const line = document.createElement("p");
    line.textContent = text;
    this.region.appendChild(line);
    while (this.region.childElementCount > KEEP) this.region.firstElementChild.remove();
  }

  /** The lines announced so far (the newest last). */
  lines() {
    return [...this.region.children].map((node) => node.textContent);
  }
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * What changed between two states of the same game, as lines to announce.
 * The computer's own actions are announced as its steps are shown (not here).
 * @param {object|null} prev the state shown before
 * @param {object} next the state now
 * @returns {string[]}
 */
export function describeChange(prev, next) {
  if (!next) return [];
  if (!prev || prev.id !== next.id) return [next.message];
  const lines = [];
  const isComputer = (color) => Boolean(color && next.players[color] && next.players[color].computer);
  // The side as the server names it: "You", the opponent's name online, White or Black.
  const who = (color) => {
    if (!next.settings) return next.players[color].name; // online: "You", or the opponent's name
    return next.settings.mode === "computer" ? "You" : capital(color);
  };
  const moves = (color) => (who(color) === "You" ? "You move" : `${who(color)} moves`);
  let saidMessage = false;
  const sayMessage = () => {
    if (!saidMessage) lines.push(next.message);
    saidMessage = true;
  };

  // New lines of the move list: cube actions, passes, results (plays are announced move by
  // move; the computer's actions as its steps are shown).
  const added = next.history.length >= prev.history.length ? next.history.slice(prev.history.length) : [];
  for (const entry of added) {
    if (entry.kind === "result") continue; // the result's own words follow
    if (entry.kind === "game") {
      lines.push(entry.text);
    } else if (isComputer(entry.color)) {
      continue;
    } else if (entry.kind === "play") {
      if (entry.text.endsWith("cannot move")) sayMessage(); // the message says why
    } else {
      lines.push(entry.text);
    }
  }
  // The opening roll the computer won: its message says both dice and that the computer
  // starts (its play is announced as its steps are shown).
  if (prev.phase === "opening" && next.opening && next.computer_to_act) sayMessage();
  // The dice: the server's message says who rolled what.
  const sameTurn = prev.phase === "move" && next.phase === "move" && prev.history.length === next.history.length;
  if (next.phase === "move" && next.dice && !next.computer_to_act && !sameTurn) sayMessage();
  // Each move in notation, and each move taken back.
  if (sameTurn && next.turn === prev.turn) {
    for (const move of next.played.slice(prev.played.length)) {
      lines.push(`${moves(next.turn)} ${move.text}`);
    }
    if (next.played.length < prev.played.length) {
      const undone = prev.played.slice(next.played.length).map((m) => m.text).join(" ");
      lines.push(`Taken back: ${undone}`);
    }
    if (next.played.length > prev.played.length && !next.legal.length && next.can.done) {
      lines.push("The play is complete: press Done (D) or Undo (U).");
    }
  }
  // The result.
  if (next.result && !prev.result) lines.push(next.result.text);
  // Whose turn it is now, when a person must act.
  const prompt = ["opening", "roll", "cube"].includes(next.phase) && !next.computer_to_act;
  if (prompt && next.message !== prev.message && !next.result) sayMessage();
  return lines;
}
