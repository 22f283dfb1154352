// The board: the current row filled from the peg tray (a click, a drag, a touch drag, or the keyboard: a
// colour's symbol, letter or digit, Backspace, Enter); the key holes of the computer's guess tapped to
// score it; your code kept by this browser to score for you; the colour-blind pegs. The forms stay the
// protocol: the board only fills their fields (code, black, white), which work without it.
import { announce } from "./announce.js";
import { score } from "./score.js";
import { keep, read } from "./kept.js";

const CONTRAST_KEY = "keypeg-contrast-pegs";
let active = null; // the composer or the scorer the keyboard plays on (the page's, once swapped in)

// -- filling a row -------------------------------------------------------------------------------------

function setUpComposer(form) {
  const input = form.querySelector("input[data-code]");
  const holes = Array.from(form.querySelectorAll("[data-hole]"));
  const tray = form.querySelector("[data-tray]");
  if (!input || !holes.length || !tray) return;
  const pegs = new Map(); // symbol -> {name, css, label}
  const keys = new Map(); // a key typed -> symbol
  const buttons = Array.from(tray.querySelectorAll("button[data-symbol]"));
  for (const b of buttons) {
    const symbol = b.dataset.symbol;
    pegs.set(symbol, { name: b.dataset.name, css: b.dataset.css, label: b.getAttribute("aria-label") });
    keys.set(symbol.toUpperCase(), symbol); // the rules' own symbols first, as codes are read
    if (symbol === ".") keys.set("-", symbol);
  }
  for (const attr of ["letter", "digit"]) {
    for (const b of buttons) { const k = b.dataset[attr]; if (k && !keys.has(k)) keys.set(k, b.dataset.symbol); }
  }
  const filled = holes.map(() => "");
  for (const [k, ch] of Array.from(input.value.toUpperCase().replace(/[\s,]/g, "")).entries()) {
    if (k < filled.length && keys.has(ch)) filled[k] = keys.get(ch);
  }
  const nameOf = (symbol) => (pegs.get(symbol) || {}).label || symbol;
  const draw = (dropped = -1) => {
    holes.forEach((hole, k) => {
      const symbol = filled[k];
      const peg = pegs.get(symbol);
      hole.className = peg ? `peg pb-peg ${peg.css}` : "hole";
      if (k === dropped) { void hole.offsetWidth; hole.classList.add("pb-drop"); }
      hole.textContent = peg ? symbol : "";
      hole.draggable = Boolean(peg);
      hole.setAttribute("aria-label", `Hole ${k + 1}: ${peg ? nameOf(symbol).replace(/^./, (c) => c.toLowerCase()) : "empty"}`);
    });
    input.value = filled.join("");
  };
  const put = (k, symbol) => {
    filled[k] = symbol;
    draw(k);
    announce(`Hole ${k + 1}: ${nameOf(symbol)}`);
  };
  const add = (symbol) => {
    const k = filled.indexOf("");
    if (k < 0) { announce("The row is full: send it, or take a peg back."); return; }
    put(k, symbol);
  };
  const clear = (k) => {
    if (!filled[k]) return;
    filled[k] = "";
    draw();
    announce(`Hole ${k + 1}: empty`);
  };
  const back = () => {
    const k = filled.map(Boolean).lastIndexOf(true);
    if (k >= 0) clear(k);
  };
  const move = (from, to) => {
    [filled[from], filled[to]] = [filled[to], filled[from]];
    draw(to);
    announce(`Hole ${to + 1}: ${filled[to] ? nameOf(filled[to]) : "empty"}`);
  };
  const complete = () => filled.every(Boolean);
  const send = () => {
    if (!complete()) {
      announce(`Fill every hole first: ${filled.filter(Boolean).length} of ${filled.length}.`);
      form.classList.remove("pb-short"); void form.offsetWidth; form.classList.add("pb-short");
      return;
    }
    form.requestSubmit(form.querySelector("button[type=submit]"));
  };

  input.required = false; // the board checks the row is full (a hidden field cannot show the browser's message)
  input.removeAttribute("autofocus"); // hidden: a page shown in place of another focuses its heading instead
  form.querySelectorAll("[data-no-js]").forEach((el) => { el.hidden = true; });
  tray.hidden = false;
  holes.forEach((hole, k) => {
    hole.disabled = false;
    hole.addEventListener("click", () => { if (!hole.dataset.dragged) clear(k); delete hole.dataset.dragged; });
  });
  buttons.forEach((b) => b.addEventListener("click", () => { if (!b.dataset.dragged) add(b.dataset.symbol); delete b.dataset.dragged; }));
  const backButton = tray.querySelector("[data-back]");
  if (backButton) backButton.addEventListener("click", back);
  form.addEventListener("submit", (event) => {
    if (!complete()) { event.preventDefault(); event.stopImmediatePropagation(); send(); }
  }, { capture: true });
  dragAndDrop(buttons, holes, filled, put, move);
  draw();
  active = { form, add, back, send, keys, kind: "compose" };
}

// HTML5 drag and drop (a mouse): from the tray to a hole, or between holes; and the same by a finger
// (pointer events: a touch drag has no HTML5 drag events).
function dragAndDrop(buttons, holes, filled, put, move) {
  const FROM = "application/x-keypeg-from";
  buttons.forEach((b) => b.addEventListener("dragstart", (e) => {
    e.dataTransfer.setData(FROM, "tray:" + b.dataset.symbol);
    e.dataTransfer.setData("text/plain", b.dataset.symbol);
    e.dataTransfer.effectAllowed = "copyMove";
  }));
  holes.forEach((hole, k) => {
    hole.addEventListener("dragstart", (e) => {
      if (!filled[k]) { e.preventDefault(); return; }
      e.dataTransfer.setData(FROM, "hole:" + k);
      e.dataTransfer.setData("text/plain", filled[k]);
      e.dataTransfer.effectAllowed = "move";
    });
    hole.addEventListener("dragover", (e) => { e.preventDefault(); hole.classList.add("pb-over"); });
    hole.addEventListener("dragleave", () => hole.classList.remove("pb-over"));
    hole.addEventListener("drop", (e) => {
      e.preventDefault();
      hole.classList.remove("pb-over");
      drop(e.dataTransfer.getData(FROM), k);
    });
  });
  const drop = (from, k) => {
    if (from.startsWith("tray:")) put(k, from.slice(5));
    else if (from.startsWith("hole:") && Number(from.slice(5)) !== k) move(Number(from.slice(5)), k);
  };
  // A finger: press a peg, move it over a hole, lift it there.
  const touch = (el, from) => {
    el.addEventListener("pointerdown", (down) => {
      if (down.pointerType === "mouse" || (from().startsWith("hole:") && !filled[Number(from().slice(5))])) return;
      let ghost = null;
      const moved = (e) => {
        if (!ghost && Math.hypot(e.clientX - down.clientX, e.clientY - down.clientY) < 10) return;
        if (!ghost) {
          ghost = el.cloneNode(true);
          ghost.removeAttribute("id");
          ghost.classList.add("pb-ghost");
          ghost.setAttribute("aria-hidden", "true");
          document.body.appendChild(ghost);
        }
        ghost.style.transform = `translate(${e.clientX - 22}px, ${e.clientY - 22}px)`; // the CSSOM, not a style attribute
      };
      const up = (e) => {
        el.removeEventListener("pointermove", moved);
        el.removeEventListener("pointerup", up);
        el.removeEventListener("pointercancel", up);
        if (!ghost) return;
        ghost.remove();
        el.dataset.dragged = "yes"; // the click that follows is the end of a drag, not a tap
        window.setTimeout(() => { delete el.dataset.dragged; }, 400);
        const target = e.type === "pointerup" ? document.elementFromPoint(e.clientX, e.clientY) : null;
        const hole = target ? target.closest("[data-hole]") : null;
        if (hole && holes.includes(hole)) drop(from(), holes.indexOf(hole));
      };
      el.setPointerCapture(down.pointerId);
      el.addEventListener("pointermove", moved);
      el.addEventListener("pointerup", up);
      el.addEventListener("pointercancel", up);
    });
  };
  buttons.forEach((b) => touch(b, () => "tray:" + b.dataset.symbol));
  holes.forEach((hole, k) => touch(hole, () => "hole:" + k));
}

// -- scoring the computer's guess ---------------------------------------------------------------------

// What a tap on a key hole does, under the rules' feedback (data-feedback): standard cycles black, white,
// empty; black only black and empty; colours a neutral peg (a peg of a right colour, placed nowhere) and empty.
const NEXT = {
  standard: { empty: "black", black: "white", white: "empty" },
  black: { empty: "black", black: "empty" },
  colours: { empty: "colour", colour: "empty" },
};

// A score as the page says it, under the rules' feedback.
function sayScore(feedback, b, w) {
  if (feedback === "colours") return `${b} ${Number(b) === 1 ? "colour" : "colours"} right`;
  if (feedback === "black") return `${b} black`;
  return `${b} black, ${w} white`;
}

// keypeg.feedback.score under the rules' feedback: colours counts black and white together, black drops white.
function scoreUnder(feedback, secret, guess) {
  const [b, w] = score(secret, guess);
  if (feedback === "colours") return [b + w, 0];
  if (feedback === "black") return [b, 0];
  return [b, w];
}

function setUpScorer(root) {
  const grid = root.querySelector("[data-key-holes]");
  const form = grid ? grid.closest("form") : null;
  if (!grid || !form) return null;
  const feedback = grid.dataset.feedback || "standard";
  const next = NEXT[feedback] || NEXT.standard;
  const right = feedback === "colours" ? "colour" : "black";  // the peg a right answer is told by
  const black = form.querySelector("[name=black]"), white = form.querySelector("[name=white]");
  const holes = Array.from(grid.querySelectorAll("[data-key-hole]"));
  const state = holes.map(() => "empty");
  const draw = () => {
    holes.forEach((hole, k) => {
      hole.className = `key ${state[k]}`;
      hole.setAttribute("aria-label", `Key ${k + 1}: ${state[k] === "colour" ? "right colour" : state[k]}`);
      hole.setAttribute("aria-pressed", state[k] === "empty" ? "false" : "true");
    });
    black.value = state.filter((s) => s === right).length;
    white.value = state.filter((s) => s === "white").length;
  };
  const fromCounts = () => {
    const b = Number(black.value) || 0, w = Number(white.value) || 0;
    holes.forEach((_, k) => { state[k] = k < b ? right : k < b + w ? "white" : "empty"; });
    draw();
  };
  const said = () => announce(sayScore(feedback, black.value, white.value));
  holes.forEach((hole, k) => {
    hole.disabled = false;
    hole.addEventListener("click", () => { state[k] = next[state[k]]; draw(); said(); });
  });
  form.querySelectorAll("[data-no-js]").forEach((el) => { el.hidden = true; });
  form.querySelectorAll("[data-no-js] [autofocus]").forEach((el) => el.removeAttribute("autofocus"));
  form.querySelectorAll("[data-js-note]").forEach((el) => { el.hidden = false; });
  const put = (kind) => {
    const k = state.indexOf("empty");
    if (k >= 0) { state[k] = kind; draw(); said(); }
  };
  const back = () => {
    const k = state.map((s) => s !== "empty").lastIndexOf(true);
    if (k >= 0) { state[k] = "empty"; draw(); said(); }
  };
  fromCounts();
  active = {
    form, kind: "score", back,
    keys: new Map(feedback === "colours" ? [["C", "colour"]] : feedback === "black" ? [["B", "black"]] : [["B", "black"], ["W", "white"]]),
    add: put,
    send: () => form.requestSubmit(form.querySelector("button[type=submit]")),
  };
  return fromCounts;
}

// Your code, kept by this browser (never sent): the score of the computer's guess filled in from it, and
// the code drawn under the shield.
// A code typed as keypeg reads one: whole, in the first notation that fits (the rules' own symbols, the
// letters A.., the digits 1..; a blank "." or "-"), written in the rules' own symbols; "" when none fits.
function readCode(text, pegs) {
  const spans = Array.from(pegs.querySelectorAll("[data-symbol]"));
  const blank = spans.some((p) => p.dataset.symbol === ".") ? "." : null;
  for (const notation of ["symbol", "letter", "digit"]) {
    const symbols = new Map(spans.filter((p) => p.dataset[notation]).map((p) => [p.dataset[notation], p.dataset.symbol]));
    const read = Array.from(text).map((ch) => symbols.get(ch) || ((ch === "." || ch === "-") && blank) || null);
    if (read.every(Boolean)) return read.join("");
  }
  return "";
}

function setUpKeeper(root, scored) {
  const keeper = root.querySelector("[data-keep-code]");
  if (!keeper) return;
  keeper.hidden = false;
  const game = keeper.getAttribute("data-keep-code");
  const input = keeper.querySelector("input");
  const guess = keeper.getAttribute("data-guess");
  const fill = () => {
    const secret = readCode(input.value.toUpperCase().replace(/[\s,]/g, ""), keeper);
    keep("keypeg-code-" + game, secret, true);
    drawShield(root, secret);
    if (!secret || !guess || secret.length !== guess.length) return;
    const [black, white] = scoreUnder(keeper.dataset.feedback || "standard", secret, guess);
    const b = root.querySelector("[name=black]"), w = root.querySelector("[name=white]");
    if (b && w) { b.value = black; w.value = white; }
    if (scored) scored();
  };
  input.value = read("keypeg-code-" + game, true) || "";
  input.addEventListener("input", fill);
  fill();
}

function drawShield(root, secret) {
  const holes = root.querySelectorAll("[data-shield-holes] .hole");
  const tray = new Map();
  root.querySelectorAll("[data-peg-css]").forEach((p) => tray.set(p.dataset.symbol, p.dataset.pegCss));
  holes.forEach((hole, k) => {
    const symbol = secret[k];
    const css = symbol ? tray.get(symbol) : null;
    hole.className = css ? `peg pb-peg ${css}` : "hole hidden-peg";
    hole.textContent = css ? symbol : "?";
  });
}

// -- the keyboard ----------------------------------------------------------------------------------------

// A peg or a hole last clicked or tapped keeps the focus; Enter then sends the row, as after typing. A
// control reached from the keyboard (Tab) keeps its own Enter.
let pointed = false;
document.addEventListener("pointerdown", () => { pointed = true; }, true);

document.addEventListener("keydown", (e) => {
  const byPointer = pointed;
  pointed = false;
  if (!active || !active.form.isConnected || e.ctrlKey || e.metaKey || e.altKey) return;
  const at = e.target instanceof Element ? e.target : null;
  if (at && at.closest("input, textarea, select, [contenteditable]")) return;
  if (e.key === "Enter") {
    const peg = at && at.closest("[data-tray] button, button[data-hole]");
    if (at && at.closest("button, a, summary") && !(byPointer && peg)) return; // Enter on a control is its own
    e.preventDefault();
    active.send();
  } else if (e.key === "Backspace") {
    e.preventDefault();
    active.back();
  } else if (e.key.length === 1 && active.keys.has(e.key.toUpperCase())) {
    e.preventDefault();
    active.add(active.keys.get(e.key.toUpperCase()));
  }
});

// -- the board fits the window ----------------------------------------------------------------------------

// A board taller than the window has room for (many rows, or a page with more above it): its rows scroll
// inside it (the current row stays in view, sticky), the board made as short as the window needs so the
// tray and the button stay in view too (never shorter than six rows). (The CSSOM, not a
// style attribute: the Content-Security-Policy allows it.)
function fitRows() {
  const list = document.querySelector("main ol.pb-rows");
  if (!list || !list.querySelector(".current")) return;
  list.style.maxHeight = "";
  const over = document.scrollingElement.scrollHeight - window.innerHeight;
  if (over <= 0) return;
  const least = 6 * (list.querySelector(".pb-row:not(.current)")?.offsetHeight || 36); // the current row is taller
  list.style.maxHeight = `${Math.max(least, list.clientHeight - over)}px`;
}
window.addEventListener("resize", () => fitRows());

// -- the colour-blind pegs ---------------------------------------------------------------------------------

function contrast(on) {
  document.documentElement.classList.toggle("pb-contrast", on);
  document.querySelectorAll("[data-contrast]").forEach((b) => b.setAttribute("aria-pressed", String(on)));
}

function setUpContrast(root) {
  root.querySelectorAll("[data-contrast]").forEach((button) => {
    button.hidden = false;
    button.addEventListener("click", () => {
      const on = !document.documentElement.classList.contains("pb-contrast");
      keep(CONTRAST_KEY, on ? "on" : null);
      contrast(on);
      announce(on ? "Colour-blind pegs: shapes and patterns." : "Colour-blind pegs off.");
    });
  });
  contrast(Boolean(read(CONTRAST_KEY)));
}

export function setUp(root) {
  active = null;
  setUpContrast(root);
  root.querySelectorAll("form[data-compose]").forEach(setUpComposer);
  setUpKeeper(root, setUpScorer(root));
  fitRows();
}
