// The daily result's Copy button (the clipboard) and Share button (the phone's share sheet, where the
// browser has one); both stay hidden without them, and the grid stays text to select.

function tell(box, text) {
  const said = box.querySelector("[data-said]");
  if (said) said.textContent = text;
}

function select(grid) {
  const range = document.createRange();
  range.selectNodeContents(grid);
  const chosen = window.getSelection();
  chosen.removeAllRanges();
  chosen.addRange(range);
}

export function setUp(root) {
  root.querySelectorAll("[data-share]").forEach((box) => {
    const grid = box.querySelector("pre.grid");
    if (!grid) return;
    const text = grid.textContent.trim();
    const copy = box.querySelector("button[data-copy]");
    if (copy && navigator.clipboard && navigator.clipboard.writeText) {
      copy.hidden = false;
      copy.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(text);
          tell(box, "Copied: paste it anywhere.");
        } catch (refused) {
          select(grid);
          tell(box, "Copying was refused: the grid is selected, copy it by hand.");
        }
      });
    }
    const share = box.querySelector("button[data-share-sheet]");
    const data = { title: "keypeg daily", text, url: new URL("/daily", window.location.href).href };
    if (share && typeof navigator.share === "function" && (!navigator.canShare || navigator.canShare(data))) {
      share.hidden = false;
      share.addEventListener("click", () => {
        navigator.share(data).catch(() => {}); // closed without sharing: nothing to say
      });
    }
  });
}
