// This browser's seats in rooms of backgammon's old online door (deleted: issue 33), carried to
// the shared table's door. When `backgammon serve` starts, it moves the old door's rooms to
// the table's door (services/room_migration.py) under their code as that door spells it
// (upper case, letters and digits: room_client.js `normalCode`), with the same seat tokens.
// The old page kept each seat in localStorage["backgammon.online.CODE.host|guest"]
// ({token, invite, secrets, seen}); room_client.js keeps its seats in
// localStorage["gametable.seats"] ({CODE: {token, game, side, at}}). This module is the one
// reader left of the old format (`keptSeats`, `forgetKeptSeat`): frozen, for browsers that
// still hold old seats.
//
// migrateOldSeats() asks the server which of the old kept seats' rooms (and the room the
// address names) it moved (POST /api/online/moved {codes} -> {moved: {code: new code}}, one
// request, always 200); each moved seat is kept as the new door's (its token, game
// "backgammon", side null: the door says it on connecting; a host's code is noted as hosted),
// then forgotten at the old door; a seat whose room did not move is left as it is (the next
// page load asks again; Options' Start over forgets it). An address naming a moved room
// (`#online=CODE` or `#join=CODE`, the old door's code) is rewritten to the new door's
// (`#online=NEWCODE`, the mode kept), so a reload or a copied address opens it there. The
// dice secrets of a round in progress are not carried: the migration restarts the round.

import { request } from "./api.js";
import { keepHosted, roomFromLocation } from "./online_tables.js";
import { SEATS_KEY, normalCode } from "./room_client.js";

/** An old seat's key: backgammon.online.CODE.host|guest (the old door's codes). */
const OLD_SEAT = /^backgammon\.online\.([A-Za-z0-9_-]{8,64})\.(host|guest)$/;

function readJSON(key, fallback) {
  try {
    const value = JSON.parse(window.localStorage.getItem(key) || "null");
    return value === null ? fallback : value;
  } catch (err) {
    return fallback;
  }
}

/**
 * This browser's seats at the old door (each kept in localStorage with its token), the one
 * used last first: [{code, seat, seen}] (`seen`: when it last connected, ms, or 0).
 */
export function keptSeats() {
  let store;
  try {
    store = window.localStorage;
  } catch (err) {
    return []; // storage disabled
  }
  if (!store) return [];
  const seats = [];
  for (let i = 0; i < store.length; i++) {
    const found = OLD_SEAT.exec(store.key(i) || "");
    const saved = found && readJSON(found[0], null);
    if (saved && saved.token) seats.push({ code: found[1], seat: found[2], seen: saved.seen || 0 });
  }
  return seats.sort((a, b) => b.seen - a.seen);
}

/** Forget this browser's old-door seat in room `code` (`seat`: "host" or "guest"). */
export function forgetKeptSeat(code, seat) {
  try {
    window.localStorage.removeItem(`backgammon.online.${code}.${seat}`);
  } catch (err) {
    // storage disabled
  }
}

/** Keep old seat {code, seat} with `token` as the new door's seat in room `next`. */
function keepAtNewDoor(next, seat, token, seen) {
  const seats = readJSON(SEATS_KEY, {});
  if (!seats || typeof seats !== "object" || Array.isArray(seats)) return false;
  if (!(seats[next] && typeof seats[next].token === "string")) {
    seats[next] = { token, game: "backgammon", side: null, at: seen || Date.now() };
  }
  try {
    window.localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
  } catch (err) {
    return false; // storage full or disabled: the old seat stays where it is
  }
  if (seat === "host") keepHosted(next);
  return true;
}

/** Which of `codes` the server moved to the new door: {old code: its code there}. */
async function movedRooms(codes) {
  if (!codes.length) return {};
  try {
    const answer = await request("POST", "/api/online/moved", { codes: codes.slice(0, 64) });
    return answer && answer.moved && typeof answer.moved === "object" ? answer.moved : {};
  } catch (err) {
    return {}; // the server out of reach: the next page load asks again
  }
}

/**
 * Carry this browser's old-door seats whose rooms moved to the shared door, and rewrite an
 * address naming one of them. Resolves to {moved: [{code, next, seat}], address: the new
 * address or null}; never rejects (storage disabled, the server out of reach: nothing moves,
 * and the next page load tries again).
 */
export async function migrateOldSeats(loc = window.location) {
  try {
    return await migrate(loc);
  } catch (err) {
    return { moved: [], address: null };
  }
}

async function migrate(loc) {
  const done = [];
  let kept = [];
  try {
    kept = keptSeats();
  } catch (err) {
    kept = [];
  }
  const found = roomFromLocation(loc);
  const asked = found && normalCode(found.code) !== found.code ? found.code : null;
  const codes = [...new Set([...(asked ? [asked] : []), ...kept.map((k) => k.code)])];
  // (one request: the page waits for it before it opens the room)
  const movedTo = await movedRooms(codes);
  const movedCodes = new Set(codes.filter((code) => typeof movedTo[code] === "string"));
  for (const { code, seat, seen } of kept) {
    if (!movedCodes.has(code)) continue;
    const saved = readJSON(`backgammon.online.${code}.${seat}`, null);
    if (!saved || typeof saved.token !== "string") continue;
    const next = normalCode(movedTo[code]);
    if (keepAtNewDoor(next, seat, saved.token, seen)) {
      forgetKeptSeat(code, seat);
      done.push({ code, next, seat });
    }
  }
  let address = null;
  if (asked && movedCodes.has(asked)) {
    const now = roomFromLocation(loc);
    if (now && now.code === asked) { // (the page has not moved on meanwhile)
      address = `${loc.pathname}${loc.search}#${now.mode}=${normalCode(movedTo[asked])}`;
      try {
        history.replaceState(history.state, "", address);
      } catch (err) {
        address = null;
      }
    }
  }
  return { moved: done, address };
}
