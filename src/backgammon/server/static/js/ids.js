// The position's IDs, ready to copy: GNU Backgammon's Position ID and Match ID, and
// eXtreme Gammon's XGID. The server computes them; this module only shows and copies them.

/**
 * Copy `text` to the clipboard; resolves to true when it worked. Falls back to selecting
 * `input` (so Ctrl+C copies it) when the page has no clipboard permission.
 */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (err) {
    if (input) {
      input.focus();
      input.select();
    }
    return Boolean(document.execCommand && document.execCommand("copy"));
  }
}

/**
 * Fill a block of three ID rows: each `[data-id="position_id"|"match_id"|"xgid"]` input gets
 * its value, and each `[data-copy]` button copies its row's input.
 */
export class IdsView {
  /**
   * @param {HTMLElement} root the block holding the rows
   * @param {HTMLElement} status where "Copied" is said
   */
  constructor(root, status) {
    this.root = root;
    this.status = status;
    for (const button of root.querySelectorAll("[data-copy]")) {
      button.addEventListener("click", async () => {
        const input = root.querySelector(`input[data-id="${button.dataset.copy}"]`);
        if (!input || !input.value) return;
        const done = await copyText(input.value, input);
        const label = button.dataset.label || "ID";
        this.status.textContent = done ? `${label} copied.` : `Select the ${label} and copy it (Ctrl+C).`;
        this.root.dataset.copied = button.dataset.copy;
      });
    }
  }

  /** @param {{position_id: string, match_id: string|null, xgid: string}|null} ids */
  show(ids) {
    for (const input of this.root.querySelectorAll("input[data-id]")) {
      const value = ids ? ids[input.dataset.id] : null;
      input.value = value || "";
      input.placeholder = ids && !value ? "(cannot be written)" : "";
    }
  }
}
