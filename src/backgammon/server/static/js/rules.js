// The rules page: the theme the player chose for the game (light, dark or the system's), and
// the worked examples, each a real position drawn on a small board with the plays the engine
// allows (GET /api/rules/examples: the server asks the engine; this page decides nothing).

import { request } from "./api.js";
import { BoardView } from "./board.js";
import { el } from "./dom.js";
import { applyTheme, loadSettings } from "./settings.js";

applyTheme(loadSettings().theme);

/** Draw one example into `slot` (its placeholder in the rule's section). */
function drawExample(slot, example) {
  slot.replaceChildren();
  slot.dataset.positionId = example.position_id;
  slot.dataset.dice = example.dice.join("-");
  const figure = el("figure", undefined, "rule-example-figure");
  figure.appendChild(el("figcaption", `Example: ${example.title}`, "rule-example-title"));
  const boardNode = el("div", undefined, "board rule-board");
  boardNode.setAttribute("role", "img");
  const plays = example.plays.map((play) => play.text);
  boardNode.setAttribute("aria-label", `${example.title}. White to play ${example.dice.join("-")}; ` +
    (plays.length ? `legal plays: ${plays.join(", ")}.` : "no legal play."));
  figure.appendChild(boardNode);
  const board = new BoardView(boardNode, { onMove: () => {} }); // never enabled: a picture
  board.drawPosition(example.board);
  board.drawDice(example.dice, example.dice, example.turn, null);
  board.drawCube({ enabled: false });
  if (example.plays.length === 1) board.setLastTurn({ color: example.turn, moves: example.plays[0].moves });
  figure.appendChild(el("p", example.caption, "rule-example-caption"));
  const list = el("p", undefined, "rule-example-plays");
  list.appendChild(el("span", plays.length === 1 ? "The only legal play: "
    : plays.length ? `The ${plays.length} legal plays: ` : "Legal plays: ", "rule-example-label"));
  if (plays.length) {
    plays.forEach((text, i) => {
      if (i) list.appendChild(document.createTextNode(", "));
      list.appendChild(el("code", text, "rule-example-play"));
    });
  } else {
    list.appendChild(el("span", "none (the turn passes)", "rule-example-none"));
  }
  figure.appendChild(list);
  figure.appendChild(el("p", `Position ID ${example.position_id}, White on roll, ` +
    `${example.dice.join("-")} · ${example.source}`, "rule-example-id"));
  slot.appendChild(figure);
  slot.dataset.drawn = "1";
}

async function drawExamples() {
  const slots = document.querySelectorAll("[data-example]");
  if (!slots.length) return;
  try {
    const examples = await request("GET", "/api/rules/examples");
    for (const example of examples) {
      let slot = document.querySelector(`[data-example="${example.id}"]`);
      if (!slot) {
        const section = document.getElementById(example.rule);
        if (!section) continue;
        slot = el("div", undefined, "rule-example");
        slot.dataset.example = example.id;
        section.appendChild(slot);
      }
      drawExample(slot, example);
    }
  } catch (err) {
    for (const slot of slots) slot.textContent = "The worked examples could not be loaded.";
  } finally {
    document.body.dataset.examples = "ready";
  }
}

drawExamples();
