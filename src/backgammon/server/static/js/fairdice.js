// Commit-reveal dice, the browser's half: the same derivation as
// backgammon.core.dice.dice_from_secrets, so both browsers and the server agree on every roll.
//
//   prefix = rollerSecret (32 bytes) || otherSecret (32 bytes) || roundNo (8 bytes, big-endian)
//   block_k = SHA-256(prefix || k as 4 bytes big-endian), k = 0, 1, 2, ...
//   read the blocks' bytes in order; skip bytes >= 252; die = byte % 6 + 1; the first two dice.
//
// SHA-256 comes from the vendored @noble/hashes (works without a secure context).

import { sha256 } from "./vendor/noble-hashes/sha2.js";

const SECRET_BYTES = 32;
const REJECT_FROM = 252;

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || /[^0-9a-f]/.test(hex)) {
    throw new Error(`not lowercase hex: ${String(hex).slice(0, 80)}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function checkSecret(secret, name) {
  if (!(secret instanceof Uint8Array) || secret.length !== SECRET_BYTES) {
    throw new Error(`${name} must be ${SECRET_BYTES} bytes`);
  }
}

/** A fresh 32-byte secret from the browser's CSPRNG. */
export function newSecret() {
  const secret = new Uint8Array(SECRET_BYTES);
  globalThis.crypto.getRandomValues(secret);
  return secret;
}

/** SHA-256 of the secret, 64 lowercase hex digits. */
export function commitment(secret) {
  checkSecret(secret, "the secret");
  return toHex(sha256(secret));
}

/** True when `secret` is the one committed to. */
export function verifyCommitment(secret, commitmentHex) {
  return commitment(secret) === commitmentHex;
}

/** The two dice fixed by the revealed secrets for round `roundNo` (an integer >= 0). */
export function diceFromSecrets(rollerSecret, otherSecret, roundNo) {
  checkSecret(rollerSecret, "the roller's secret");
  checkSecret(otherSecret, "the other player's secret");
  if (!Number.isSafeInteger(roundNo) || roundNo < 0) {
    throw new Error(`the round number must be a non-negative integer, got ${roundNo}`);
  }
  const message = new Uint8Array(SECRET_BYTES * 2 + 8 + 4);
  message.set(rollerSecret, 0);
  message.set(otherSecret, SECRET_BYTES);
  const view = new DataView(message.buffer);
  view.setBigUint64(SECRET_BYTES * 2, BigInt(roundNo), false);
  const dice = [];
  for (let counter = 0; counter < 2 ** 32; counter += 1) {
    view.setUint32(SECRET_BYTES * 2 + 8, counter, false);
    for (const byte of sha256(message)) {
      if (byte >= REJECT_FROM) continue;
      dice.push((byte % 6) + 1);
      if (dice.length === 2) return dice;
    }
  }
  throw new Error("the dice stream ran out");
}
