// A room's page, live (loaded by room.js on a room's pages only): follow its stream of events; when the room
// changes (a version the page does not show), show the new page's <main> in place of this one, keeping the
// row being filled and the focus. The stream, opened with ?page=true, brings that page with each change (as
// the page's GET renders it); a state without it (the room over) has the page fetched again. What changed for you is said by the live region (announce.js).
// The clock of your move counts down from the seconds the server sent; the server is the judge, and its
// stream brings what happened. The links to share get Copy buttons. Without this script the page is plain
// forms, and a reload shows the room as it is.
import { announce } from "./announce.js";
import { countDown } from "./clock.js";
import { pageFor, reloadForNewViewer, showPage } from "./pages.js";

const STATE_EVENTS = ["state", "alive", "message"];
const KEEPALIVE_MS = 5000;
let following = null;

function follow(root) {
  const marker = root.querySelector("[data-room-events]");
  if (!marker) { if (following && !document.querySelector("[data-room-events]")) { following.stop(); following = null; } return; }
  const address = marker.getAttribute("data-room-events");
  if (following && following.address === address) return;
  if (following) following.stop();
  following = stream(address);
}

// An EventSource that is opened again after 1, 2, 4 ... at most 30 s when the server closes it for good
// (a restart, an answer that is not 200) or it falls silent; the browser itself reconnects a stream cut by
// the network. The server sends a state at every change and an "alive" event with its version every 5 s.
function stream(address) {
  const run = { address, source: null, delay: 1000, again: null, stopped: false };
  const reopen = () => {
    if (run.source) run.source.close();
    run.source = null;
    if (run.stopped || run.again) return;
    run.again = window.setTimeout(() => { run.again = null; open(); }, run.delay);
    run.delay = Math.min(run.delay * 2, 30000);
  };
  const open = () => {
    const source = new EventSource(`${address}${address.includes("?") ? "&" : "?"}page=true`);
    run.source = source;
    run.heard = Date.now();
    let first = false; // the first state since the stream (re)connected: the session it was opened with
    source.addEventListener("open", () => { first = true; });
    const got = async (event) => {
      run.heard = Date.now();
      const opened = first && event.type === "state";
      if (opened) first = false;
      if (await showState(event.data, event.type, opened)) run.delay = 1000;
    };
    for (const name of STATE_EVENTS) source.addEventListener(name, got);
    source.addEventListener("error", () => { if (source.readyState === EventSource.CLOSED) reopen(); });
  };
  // A stream silent for longer than two keep-alives (a proxy holding it, a server gone) is opened again.
  const watchdog = window.setInterval(() => {
    if (run.source && Date.now() - run.heard > 2 * KEEPALIVE_MS + 1000) reopen();
  }, 1000);
  run.reopen = reopen;
  run.stop = () => {
    run.stopped = true;
    window.clearInterval(watchdog);
    if (run.again) window.clearTimeout(run.again);
    if (run.source) run.source.close();
  };
  open();
  return run;
}

function parsed(data) {
  try {
    return JSON.parse(data);
  } catch (notJson) {
    return null;
  }
}

// Where the focus is, as a selector the new page can answer (an id, a peg of the tray, a hole, a form's
// button), so an update made by someone else never takes the focus away from what you were doing.
function focusKey() {
  const el = document.activeElement;
  if (!el || el === document.body || !el.closest("main")) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  if (el.dataset.symbol !== undefined && el.closest("[data-tray]")) return `[data-tray] [data-symbol="${CSS.escape(el.dataset.symbol)}"]`;
  if (el.dataset.hole !== undefined) return `[data-hole="${CSS.escape(el.dataset.hole)}"]`;
  if (el.matches("[data-back]")) return "[data-tray] [data-back]";
  const form = el.closest("form[action]");
  if (form && el.tagName === "BUTTON") {
    const button = el.hasAttribute("value") ? `button[value="${CSS.escape(el.value)}"]` : `button[type="${CSS.escape(el.type)}"]:not([value])`;
    return `form[action="${CSS.escape(form.getAttribute("action"))}"] ${button}`;
  }
  return "h1";
}

// A finger or a mouse button pressed on the page holds the next page back until it is lifted (and its
// click has landed): a page swapped between the press and the release would lose the click.
let pressed = false;
let held = [];
document.addEventListener("pointerdown", () => { pressed = true; }, true);
const lifted = () => {
  pressed = false;
  const waiting = held;
  held = [];
  window.setTimeout(() => waiting.forEach((go) => go()), 60);
};
document.addEventListener("pointerup", lifted, true);
document.addEventListener("pointercancel", lifted, true);
const unpressed = () => (pressed ? new Promise((go) => held.push(go)) : Promise.resolve());

// The round a page shows in play ("" between rounds).
function roundOf(root) {
  const found = root.querySelector("[data-room-events]");
  return found ? found.getAttribute("data-round") : "";
}

// Show the page of the state a stream sent; false when the page could not be had.
async function showState(data, kind, opened = false) {
  const shownNow = document.querySelector("[data-room-events]");
  const state = parsed(data);
  const version = state && state.version !== undefined ? String(state.version) : null;
  if (kind === "alive" && version === null) return true; // a keep-alive that tells no version
  if (opened && reloadForNewViewer(state, shownNow)) return true;
  if (shownNow && version !== null && version === shownNow.getAttribute("data-version")) return true;
  const html = await pageFor(state); // brought by the stream, or fetched
  if (html === null) { if (following) following.reopen(); return false; }
  await unpressed();
  show(html, false, true);
  return true;
}

// Show a room's page in place of this one, unless the page shown is as new or newer (``force``: an
// answer that says why a move was refused is shown whatever its version; ``quiet``: someone else's move,
// shown without the board's animations, which would replay at every move). Whether it was shown.
function show(html, force, quiet = false) {
  const now = document.querySelector("[data-room-events]");
  const got = new DOMParser().parseFromString(html, "text/html").querySelector("main [data-room-events]");
  if (got && now && !force && Number(got.getAttribute("data-version")) <= Number(now.getAttribute("data-version"))) return false;
  if (!got) { showPage(html); return true; } // no longer a room's page (the room is gone)
  const said = now ? now.getAttribute("data-say") : "";
  // The row being filled is kept for the same row of the same form only: not once it is being sent (the
  // next row starts empty), nor for another round's board.
  const typed = document.querySelector("main input[data-code]");
  const form = typed ? typed.closest("form") : null;
  const kept = typed && !form.dataset.sending ? typed.value : "";
  const rowOf = (f) => { const row = f.querySelector("input[name=row]"); return row ? row.value : ""; };
  const key = focusKey();
  const main = showPage(html, (fresh) => {
    if (quiet) fresh.classList.add("rm-quiet");
    const input = fresh.querySelector("input[data-code]");
    const there = input ? input.closest("form") : null;
    if (!kept || !there || there.getAttribute("action") !== form.getAttribute("action")) return;
    if (rowOf(there) === rowOf(form) && roundOf(fresh) === roundOf(document)) input.value = kept;
  });
  if (!main) return true;
  const marker = main.querySelector("[data-room-events]");
  const say = marker ? marker.getAttribute("data-say") : "";
  if (say && say !== said) announce(say);
  if (key) {
    const target = main.querySelector(key) || main.querySelector("[autofocus]") || main.querySelector("h1");
    if (target) target.focus({ preventScroll: true });
  }
  return true;
}

// A room's form (a guess, a code, start, leave ...) sent in the background; its answer is shown unless
// the stream already brought the room as new or newer (then the answer, older, would undo what came
// after: the row being filled, someone else's move).
async function send(form, submitter) {
  if (form.dataset.sending) return; // a double click sends the form once
  const key = focusKey(); // before its buttons are disabled (a disabled button loses the focus)
  form.dataset.sending = "yes";
  form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  const data = new FormData(form);
  if (submitter && submitter.name) data.append(submitter.name, submitter.value);
  let answer, html;
  try {
    answer = await fetch(form.action, { method: "POST", body: data, credentials: "same-origin" });
    html = await answer.text();
  } catch (error) {
    form.submit();
    return;
  }
  const before = document.querySelector("main");
  if (!show(html, !answer.ok) && form.isConnected) {
    delete form.dataset.sending;
    form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
  }
  const main = document.querySelector("main");
  if (answer.ok && form.getAttribute("action").endsWith("/guess")) { // your guess's score, said at once
    const played = main.querySelectorAll("[data-board=current] li.played");
    const score = played.length ? played[played.length - 1].querySelector(".score-text") : null;
    if (score) announce(`Guess ${played.length}: ${score.textContent}`);
  }
  // The focus, lost with the button disabled while sending (or by a page swapped meanwhile by the stream),
  // comes back: to the refusal said, else to the control that sent the form (the next row's Guess), else
  // to the page's title.
  if (!main.contains(document.activeElement) || document.activeElement === main.querySelector("h1")) {
    const again = key ? main.querySelector(key) : null;
    const focus = main.querySelector("[role=alert]") || (again && !again.disabled ? again : null) || main.querySelector("h1");
    if (focus) focus.focus();
  }
}

function setUpForms(root) {
  root.querySelectorAll("form[data-room-form]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (event.defaultPrevented) return;
      event.preventDefault();
      send(form, event.submitter);
    });
  });
}

// The clock of the move awaited from you (or of the round), counted down from the page's seconds.
let ticking = null;
function setUpClock(root) {
  if (ticking) window.clearInterval(ticking);
  ticking = null;
  const shown = root.querySelector("[data-room-clock]");
  if (!shown) return;
  ticking = countDown(shown, Number(shown.getAttribute("data-room-clock")));
}

// Copy buttons beside the links to share (shown only where the clipboard can be written).
function setUpCopy(root) {
  root.querySelectorAll("button[data-copy-from]").forEach((button) => {
    const field = root.querySelector(`#${CSS.escape(button.getAttribute("data-copy-from"))}`);
    if (!field || !navigator.clipboard || !navigator.clipboard.writeText) return;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        announce("Copied the link.");
        button.textContent = "Copied";
      } catch (refused) {
        field.select();
        announce("Copying was refused: the link is selected, copy it by hand.");
      }
    });
  });
}

export function setUp(root) {
  setUpForms(root);
  setUpClock(root);
  setUpCopy(root);
  follow(root);
}
