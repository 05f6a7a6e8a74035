// .mat transcripts: export the game or match (copy to the clipboard, or download) and open
// a .mat file to review it on the board. The server writes and reads the files (our .mat
// writer and reader); a file with a problem is refused with its line and the reason.

import { exportText, exportUrl, importMat } from "./assist_api.js";

const $ = (id) => document.getElementById(id);

/** The largest file sent to the server, in bytes (it refuses larger ones too). */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** A transcript file's text: UTF-16 when it starts with that byte order mark (as some
 * Windows programs write), else UTF-8. */
async function fileText(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const bom = bytes.length >= 2 ? (bytes[0] << 8) | bytes[1] : 0;
  if (bom === 0xfffe) return new TextDecoder("utf-16le").decode(bytes);
  if (bom === 0xfeff) return new TextDecoder("utf-16be").decode(bytes);
  return new TextDecoder("utf-8").decode(bytes);
}

export class Records {
  /**
   * @param {object} hooks
   * @param {() => object|null} hooks.getGame the live state
   * @param {import("./review.js").Review} hooks.review
   * @param {(text: string) => void} hooks.say announce a line
   * @param {(text: string) => void} hooks.showError show an error in words (empty: hide it)
   * @param {() => object|null} [hooks.exportSource] where the transcript comes from instead of
   *   the local game (online play): see source()
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.current = null; // the source the dialog is open for
    this.blobUrl = null; // the download link's object URL, when the text came without one
    $("export-button").addEventListener("click", () => this.openExport());
    $("export-scope").addEventListener("change", () => this.loadExport());
    $("export-copy").addEventListener("click", () => this.copy());
    $("import-button").addEventListener("click", () => $("import-file").click());
    $("import-file").addEventListener("change", () => this.importChosen());
  }

  /** The game number chosen in the dialog, or null for the whole session. */
  scope() {
    const value = $("export-scope").value;
    return value === "all" ? null : Number(value);
  }

  /**
   * Where the transcript comes from: {games (how many), match (a match, not single games),
   * url (number) => the download URL or null, load (number) => Promise<{text, filename}>};
   * the hook's (online play) or the local game's; null when there is no game.
   */
  source() {
    const own = this.hooks.exportSource && this.hooks.exportSource();
    if (own) return own;
    const game = this.hooks.getGame();
    if (!game) return null;
    return {
      games: game.score.game_number,
      match: game.settings.kind === "match",
      url: (number) => exportUrl(game.id, number),
      load: async (number) => ({ text: await exportText(game.id, number), filename: null }),
    };
  }

  openExport() {
    const source = this.source();
    if (!source) return;
    this.current = source;
    const select = $("export-scope");
    const games = source.games;
    select.replaceChildren();
    const whole = document.createElement("option");
    whole.value = "all";
    whole.textContent = source.match ? "The whole match" : games > 1 ? "Every game" : "The game";
    select.appendChild(whole);
    if (games > 1) {
      for (let n = 1; n <= games; n++) {
        const option = document.createElement("option");
        option.value = String(n);
        option.textContent = `Game ${n}`;
        select.appendChild(option);
      }
    }
    $("export-scope-row").hidden = games <= 1;
    $("export-dialog").showModal();
    this.loadExport();
  }

  async loadExport() {
    const source = this.current;
    if (!source) return;
    const status = $("export-status");
    const text = $("export-text");
    const number = this.scope();
    const download = $("export-download");
    if (this.blobUrl) URL.revokeObjectURL(this.blobUrl);
    this.blobUrl = null;
    const url = source.url(number);
    if (url) download.href = url;
    else download.removeAttribute("href"); // not a link until the text has come
    download.setAttribute("download", "");
    text.value = "";
    status.textContent = "Writing the transcript…";
    delete $("export-dialog").dataset.ready;
    try {
      const answer = await source.load(number);
      text.value = answer.text;
      if (!url) {
        // No URL to download from (online play): the text itself, as a file.
        this.blobUrl = URL.createObjectURL(new Blob([answer.text], { type: "text/plain" }));
        download.href = this.blobUrl;
        download.setAttribute("download", answer.filename || "backgammon.mat");
      }
      status.textContent = "Copy it, or download it as a .mat file.";
      $("export-dialog").dataset.ready = "true";
    } catch (err) {
      status.textContent = err.message;
    }
  }

  async copy() {
    const text = $("export-text").value;
    const status = $("export-status");
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied to the clipboard.";
    } catch (err) {
      // No clipboard permission: select the text so Ctrl+C copies it.
      $("export-text").select();
      const copied = document.execCommand && document.execCommand("copy");
      status.textContent = copied ? "Copied to the clipboard." : "Select the text and copy it (Ctrl+C).";
    }
    this.hooks.say(status.textContent);
  }

  async importChosen() {
    const input = $("import-file");
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    this.hooks.showError("");
    if (file.size > MAX_FILE_BYTES) {
      this.hooks.showError(`${file.name} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB: it cannot be a .mat transcript.`);
      return;
    }
    try {
      const text = await fileText(file);
      const data = await importMat(text, file.name);
      this.hooks.review.enterRecord(data, file.name, text);
    } catch (err) {
      this.hooks.showError(err.message);
      this.hooks.say(err.message);
    }
  }
}
